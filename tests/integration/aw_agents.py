"""An agent written for AndroidWorld (its EnvironmentInteractingAgent, its JSON actions on its own
AsyncAndroidEnv), for the adapter test of `mgfarm eval --suite androidworld`. Import it only once
AndroidWorld is importable (`mgfarm.suites.androidworld.prepare_android_world`)."""

from __future__ import annotations

from typing import Any

from android_world.agents import base_agent
from android_world.env import json_action


class StopwatchAgent(base_agent.EnvironmentInteractingAgent):  # type: ignore[misc]
    """Starts Clock's stopwatch, one action per step: open Clock, tap Stopwatch, tap Start, done."""

    def __init__(self, env: Any, name: str = "StopwatchAgent") -> None:
        super().__init__(env, name, transition_pause=0.2)
        self.turn = 0

    def reset(self, go_home: bool = False) -> None:
        super().reset(go_home)
        self.turn = 0

    def step(self, goal: str) -> base_agent.AgentInteractionResult:
        self.turn += 1
        if self.turn == 1:
            self.env.execute_action(
                json_action.JSONAction(action_type=json_action.OPEN_APP, app_name="Clock")
            )
        elif self.turn in (2, 3):
            label = "Stopwatch" if self.turn == 2 else "Start"
            elements = self.get_post_transition_state().ui_elements
            index = next(i for i, e in enumerate(elements) if e.content_description == label)
            self.env.execute_action(json_action.JSONAction(action_type=json_action.CLICK, index=index))
        else:
            return base_agent.AgentInteractionResult(True, {"turn": self.turn})
        return base_agent.AgentInteractionResult(False, {"turn": self.turn})
