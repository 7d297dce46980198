"""`dumpsys` sections about the hardware: input, display, battery, power, telephony.registry.

Laid out as Android 13 on the emulator prints them, reduced to the lines tools parse (AndroidWorld reads
`logicalFrame=`/`physicalFrame=` and `mCallState=`, android_env reads `SurfaceOrientation:`).
"""

from __future__ import annotations

from mgfarm.sim.shell.registry import Invocation
from mgfarm.sim.shell.ui_cmd import physical_density, physical_size
from mgfarm.sim.system.telephony import BATTERY_HEALTH, BATTERY_STATUS

DISPLAY_UNIQUE_ID = "local:4619827259835644672"


def rotation(inv: Invocation) -> int:
    """The display's rotation, 0-3, as the window manager composes the screen."""
    return inv.device.services.window.current_rotation()


def logical_size(inv: Invocation) -> tuple[int, int]:
    w, h = physical_size(inv)
    return (h, w) if rotation(inv) % 2 else (w, h)


def viewport(inv: Invocation) -> str:
    """DisplayViewport::toString of the built-in display."""
    lw, lh = logical_size(inv)
    return (
        f"Viewport INTERNAL: displayId=0, uniqueId={DISPLAY_UNIQUE_ID}, port=0, orientation={rotation(inv)}, "
        f"logicalFrame=[0, 0, {lw}, {lh}], physicalFrame=[0, 0, {lw}, {lh}], deviceSize=[{lw}, {lh}], "
        "isActive=[1]"
    )


def input_section(inv: Invocation) -> str:
    """The touch screen's raw axes stay the panel's (natural) ones; the viewport and
    SurfaceOrientation follow the rotation (the keyboard is not orientation-aware: 0)."""
    w, h = physical_size(inv)
    rot = rotation(inv)
    port = viewport(inv)
    return f"""INPUT MANAGER (dumpsys input)

Input Manager State:
  Interactive: true
  System UI Lights Out: false
  Pointer Speed: 0
  Pointer Gestures Enabled: true
  Show Touches: false
  Pointer Capture: Disabled, seq=0

Event Hub State:
  BuiltInKeyboardId: -2
  Devices:
    -1: Virtual
      Classes: KEYBOARD | ALPHAKEY
      Path: <virtual>
    1: virtio_input_multi_touch_1
      Classes: TOUCH | TOUCH_MT
      Path: /dev/input/event1
      Enabled: true
      Descriptor: 485d69228e24f5e46da1598745890b214130dbc4
      Location: virtio0/input0
      ControllerNumber: 0
      UniqueId:
      Identifier: bus=0x0006, vendor=0x0000, product=0x0000, version=0x0001
    2: qwerty2
      Classes: KEYBOARD | ALPHAKEY | DPAD
      Path: /dev/input/event2

Input Reader State (Nums of device: 2):
  Device 1: virtio_input_multi_touch_1
    EventHub Devices: [ 1 ]
    Generation: 14
    IsExternal: false
    AssociatedDisplayPort: <none>
    AssociatedDisplayUniqueId: <none>
    HasMic:     false
    Sources: 0x00001002
    KeyboardType: 0
    ControllerNum: 0
    Motion Ranges:
      X: source=0x00001002, min=0.000, max={w - 1}.000, flat=0.000, fuzz=0.000, resolution=0.000
      Y: source=0x00001002, min=0.000, max={h - 1}.000, flat=0.000, fuzz=0.000, resolution=0.000
    Touch Input Mapper (mode - DIRECT):
      Parameters:
        GestureMode: MULTI_TOUCH
        DeviceType: TOUCH_SCREEN
        AssociatedDisplay: hasAssociatedDisplay=true, isExternal=false, displayId=''
        OrientationAware: true
      Raw Touch Axes:
        X: min=0, max={w - 1}, flat=0, fuzz=0, resolution=0
        Y: min=0, max={h - 1}, flat=0, fuzz=0, resolution=0
      {port}
      RawSurfaceWidth: {w}px
      RawSurfaceHeight: {h}px
      SurfaceLeft: 0
      SurfaceTop: 0
      SurfaceRight: {w}
      SurfaceBottom: {h}
      PhysicalWidth: {w}px
      PhysicalHeight: {h}px
      PhysicalLeft: 0
      PhysicalTop: 0
      SurfaceOrientation: {rot}
      Translation and Scaling Factors:
        XScale: 1.000
        YScale: 1.000
  Device 2: qwerty2
    EventHub Devices: [ 2 ]
    Generation: 6
    IsExternal: false
    Sources: 0x00000301
    KeyboardType: 2
    Keyboard Input Mapper:
      Parameters:
        OrientationAware: false
      KeyboardType: 2
      Orientation: 0

  Configuration:
    ExcludedDeviceNames: []
    VirtualKeyQuietTime: 0.0ms
    PointerVelocityControlParameters: scale=1.000, lowThreshold=500.000, highThreshold=3000.000, \
acceleration=3.000
    WheelVelocityControlParameters: scale=1.000, lowThreshold=15.000, highThreshold=50.000, \
acceleration=4.000
    PointerGesture:
      Enabled: true
    Viewports:
      {port}

Input Dispatcher State:
  DispatchEnabled: true
  DispatchFrozen: false
  InputFilterEnabled: false
  FocusedDisplayId: 0
"""


def display_section(inv: Invocation) -> str:
    w, h = physical_size(inv)
    lw, lh = logical_size(inv)
    d = physical_density(inv)
    rot = rotation(inv)
    return (
        "DISPLAY MANAGER (dumpsys display)\n"
        "  mOnlyCode=false\n"
        "  mSafeMode=false\n"
        "  mPendingTraversal=false\n"
        "  mViewports=[DisplayViewport{type=INTERNAL, valid=true, isActive=true, displayId=0, "
        f"uniqueId='{DISPLAY_UNIQUE_ID}', physicalPort=0, orientation={rot}, "
        f"logicalFrame=Rect(0, 0 - {lw}, {lh}), physicalFrame=Rect(0, 0 - {lw}, {lh}), "
        f"deviceWidth={lw}, deviceHeight={lh}}}]\n"
        "  mDefaultDisplayDefaultColorMode=0\n"
        "  mWifiDisplayScanRequestCount=0\n"
        f'  mBaseDisplayInfo=DisplayInfo{{"Built-in Screen", displayId 0, displayGroupId 0, FLAG_SECURE, '
        f"FLAG_SUPPORTS_PROTECTED_BUFFERS, FLAG_TRUSTED, real {w} x {h}, largest app {w} x {h}, "
        f"smallest app {w} x {h}, appVsyncOff 1000000, presDeadline 16666666, mode 1, defaultMode 1, "
        f"modes [{{id=1, width={w}, height={h}, fps=60.0, alternativeRefreshRates=[]}}], "
        f"rotation 0, state ON, density {d} ({d}.0 x {d}.0) dpi, type INTERNAL, "
        f'uniqueId "{DISPLAY_UNIQUE_ID}", app {w} x {h}, brightnessMinimum 0.0, brightnessMaximum 1.0}}\n'
        "  Display Devices: size=1\n"
        f'    DisplayDeviceInfo{{"Built-in Screen": uniqueId="{DISPLAY_UNIQUE_ID}", {w} x {h}, '
        f"modeId 1, defaultModeId 1, density {d}, {d}.0 x {d}.0 dpi, appVsyncOff 1000000, "
        "presDeadline 16666666, touch INTERNAL, rotation 0, type INTERNAL, address {port=0, model=0x0}, "
        "state ON, frameRateOverride , brightnessMinimum 0.0, brightnessMaximum 1.0, "
        "brightnessDefault 0.39763778, FLAG_DEFAULT_DISPLAY, FLAG_ROTATES_WITH_CONTENT, FLAG_SECURE, "
        "FLAG_SUPPORTS_PROTECTED_BUFFERS}\n"
        "  Logical Displays: size=1\n"
        f"  Display 0:\n    mDisplayId=0\n    mPhase=1\n    mLayerStack=0\n    mHasContent=true\n"
        f"    mPrimaryDisplayDevice=Built-in Screen\n"
        f'    mOverrideDisplayInfo=DisplayInfo{{"Built-in Screen", displayId 0, displayGroupId 0, '
        f"FLAG_SECURE, FLAG_SUPPORTS_PROTECTED_BUFFERS, FLAG_TRUSTED, real {lw} x {lh}, "
        f"largest app {max(w, h)} x {max(w, h)}, smallest app {min(w, h)} x {min(w, h)}, mode 1, "
        f"defaultMode 1, rotation {rot}, state ON, density {d} ({d}.0 x {d}.0) dpi, type INTERNAL, "
        f'uniqueId "{DISPLAY_UNIQUE_ID}", app {lw} x {lh}}}\n'
    )


def battery_section(inv: Invocation) -> str:
    power = inv.device.services.telephony.power
    ac, level, present = power.ac, power.capacity, power.present
    status = BATTERY_STATUS.get(power.status, 1)
    health = BATTERY_HEALTH.get(power.health, 1)
    return (
        "Current Battery Service state:\n"
        f"  AC powered: {str(ac).lower()}\n"
        "  USB powered: false\n"
        "  Wireless powered: false\n"
        "  Dock powered: false\n"
        "  Max charging current: 0\n"
        "  Max charging voltage: 0\n"
        "  Charge counter: 10000\n"
        f"  status: {status}\n"
        f"  health: {health}\n"
        f"  present: {str(present).lower()}\n"
        f"  level: {level}\n"
        "  scale: 100\n"
        "  voltage: 5000\n"
        "  temperature: 250\n"
        "  technology: Li-ion\n"
    )


def telephony_registry_section(inv: Invocation) -> str:
    """TelephonyRegistry.dump: the last known state of phone 0 (what TelephonyManager listeners got)."""
    modem = inv.device.services.telephony
    state = int(modem.state())
    number = modem.incoming_number()
    ringing = 1 if state == 1 else 0
    foreground = 1 if state == 2 else 0
    voice = modem.radio.voice
    in_service = 0 if voice in ("home", "roaming", "on") else 1
    reg = "OUT_OF_SERVICE" if in_service else "IN_SERVICE"
    return (
        "last known state:\n"
        "  Phone Id=0\n"
        f"    mCallState={state}\n"
        f"    mRingingCallState={ringing}\n"
        f"    mForegroundCallState={foreground}\n"
        "    mBackgroundCallState=0\n"
        f"    mPreciseCallState=Ringing call state: {ringing}, Foreground call state: {foreground}, "
        "Background call state: 0, Disconnect cause: -1, Precise disconnect cause: -1\n"
        "    mCallDisconnectCause=-1\n"
        "    mCallPreciseDisconnectCause=-1\n"
        "    mCallNetworkType=13\n"
        f"    mCallIncomingNumber={number}\n"
        f"    mServiceState={{mVoiceRegState={in_service}({reg}), mDataRegState={in_service}({reg}), "
        "mChannelNumber=-1, duplexMode()=0, mCellBandwidths=[], mOperatorAlphaLong=T-Mobile, "
        "mOperatorAlphaShort=T-Mobile, isManualNetworkSelection=false(automatic), "
        f"getRilVoiceRadioTechnology=14(LTE), getRilDataRadioTechnology=14(LTE), mIsEmergencyOnly=false, "
        f"isUsingCarrierAggregation=false, mArfcnRsrpBoost=0, mNetworkRegistrationInfos=[], "
        f"mNrFrequencyRange=0, mOperatorAlphaLongRaw=T-Mobile, mOperatorAlphaShortRaw=T-Mobile, "
        f"mIsDataRoamingFromRegistration={str(voice == 'roaming').lower()}, mIsIwlanPreferred=false}}\n"
        "    mVoiceActivationState=0\n"
        "    mDataActivationState=0\n"
        "    mUserMobileDataState=false\n"
        "    mSignalStrength=SignalStrength:{mCdma=Invalid,mGsm=Invalid,mWcdma=Invalid,mTdscdma=Invalid,"
        "mLte=CellSignalStrengthLte: rssi=-51 rsrp=-95 rsrq=-7 rssnr=2147483647 cqiTableIndex=2147483647 "
        "cqi=2147483647 ta=2147483647 level=4 parametersUseForLevel=0,mNr=Invalid,"
        "primary=CellSignalStrengthLte}\n"
        "    mMessageWaiting=false\n"
        "    mCallForwarding=false\n"
        "    mDataActivity=0\n"
        "    mDataConnectionState=2\n"
        "    mCellIdentity=CellIdentityLte:{ mCi=**** mPci=0 mTac=**** mEarfcn=0 mBands=[] "
        "mBandwidth=2147483647 "
        "mMcc=310 mMnc=260 mAlphaLong=T-Mobile mAlphaShort=T-Mobile mAdditionalPlmns={} mCsgInfo=null}\n"
        "    mSrvccState=-1\n"
        "    mRadioPowerState=1\n"
        "    mImsCallDisconnectCause=ImsReasonInfo :: {0 : NULL, 0, null}\n"
        "  mDefaultPhoneId=0\n"
        "  mDefaultSubId=1\n"
        "local logs:\n"
    )
