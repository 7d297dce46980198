"""The real uiautomator2 package against the simulated device's u2 server."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator
from pathlib import Path

import adbutils
import pytest
import uiautomator2 as u2
from PIL import Image

from tests.integration.conftest import AdbServer, SimHandle


def u2_port_open(dev: adbutils.AdbDevice) -> bool:
    try:
        conn = dev.create_connection(adbutils.Network.TCP, 9008)
    except adbutils.AdbError:
        return False
    conn.close()
    return True


@pytest.fixture
def u2dev(adb_server: AdbServer, sim_device: SimHandle) -> Iterator[u2.Device]:
    dev = adb_server.client().device(sim_device.serial)
    assert not u2_port_open(dev), "tcp:9008 must be refused before the server is launched"
    d = u2.connect(dev)
    d.settings["wait_timeout"] = 2.0
    yield d
    d.stop_uiautomator()


def test_connect_pushes_jar_and_serves_info_and_hierarchy(u2dev: u2.Device) -> None:
    info = u2dev.info
    assert info["displayWidth"] == 1080 and info["displayHeight"] == 2400
    assert info["sdkInt"] > 0
    xml = u2dev.dump_hierarchy()
    assert xml.startswith("<?xml") and "<node " in xml
    # the jar was pushed through sync and md5sum matches what u2 ships, so no push loop
    jar = Path(u2.__file__).parent / "assets" / "u2.jar"
    local_md5 = hashlib.md5(jar.read_bytes()).hexdigest()
    assert local_md5 in u2dev.shell("toybox md5sum /data/local/tmp/u2.jar").output


def test_screenshot_is_a_full_size_jpeg(u2dev: u2.Device) -> None:
    image = u2dev.screenshot()
    assert isinstance(image, Image.Image)
    assert image.size == (1080, 2400)
    buf = io.BytesIO()
    image.save(buf, "PNG")
    assert buf.tell() > 1000


def test_press_click_swipe_and_selectors(u2dev: u2.Device) -> None:
    u2dev.press("home")
    assert u2dev.info["currentPackageName"]
    home_xml = u2dev.dump_hierarchy()
    u2dev.swipe(540, 1800, 540, 600, steps=10)
    u2dev.press("back")
    u2dev.click(540, 1200)
    assert u2dev(text="No such text anywhere 123").exists(timeout=0.2) is False
    with pytest.raises(u2.UiObjectNotFoundError):
        u2dev(text="No such text anywhere 123").click(timeout=0.2)
    assert home_xml


def test_selectors_click_and_set_text_create_a_contact(u2dev: u2.Device) -> None:
    u2dev.shell("am start -n com.google.android.contacts/com.android.contacts.activities.PeopleActivity")
    u2dev(description="Create contact").click()
    u2dev(resourceId="com.google.android.contacts:id/first_name").set_text("Ada")
    u2dev(resourceId="com.google.android.contacts:id/last_name").set_text("Lovelace")
    u2dev(resourceId="com.google.android.contacts:id/phone").set_text("+1 555 0100")
    assert u2dev(resourceId="com.google.android.contacts:id/first_name").get_text() == "Ada"
    u2dev(text="Save").click()
    rows = u2dev.shell(
        "content query --uri content://contacts/phones --projection display_name:number"
    ).output
    assert "display_name=Ada Lovelace" in rows
    u2dev.press("back")
    assert u2dev(textContains="Lovelace").exists(timeout=2)
    info = u2dev(textContains="Lovelace").info
    assert info["bounds"]["right"] > info["bounds"]["left"] and info["text"].endswith("Lovelace")


def test_stopping_the_server_refuses_the_port(adb_server: AdbServer, sim_device: SimHandle) -> None:
    dev = adb_server.client().device(sim_device.serial)
    d = u2.connect(dev)
    assert u2_port_open(dev)
    d.stop_uiautomator()
    assert not u2_port_open(dev)
