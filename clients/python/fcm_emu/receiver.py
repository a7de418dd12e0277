"""A real receiver for a test: firebase-messaging (an unmodified FCM web client, the one Home
Assistant's integrations use) registered with the emulator and holding its MCS connection, in a
background thread (docs/receivers.md).

It needs the optional dependency: ``pip install "fcm-emu[receiver]"`` (firebase-messaging).

    with emulator.receiver() as phone:          # checked in, registered, connected
        send_something_to(phone.token)           # your code, through the HTTP v1 API
        [message] = phone.wait_for(1)            # what its callback got, decrypted
        phone.disconnect()                       # offline: FCM stores what comes now
        phone.connect()                          # back: stored messages arrive, once each

The client itself is not changed: only where it connects is. Its host names are module constants
of firebase-messaging, read when it calls them, so the receiver points them at the emulator's
TLS and MCS ports and trusts the emulator's CA, for this process.
"""

from __future__ import annotations

import asyncio
import ssl
import threading
from typing import Any, Dict, List, Optional

#: Any key of an API key's shape (``AIza`` and 35 characters): the emulator keeps no list of them.
API_KEY = "AIzaSyFcmEmuReceiverHelper-0123456789ab"


class Receiver:
    """One firebase-messaging client against ``emulator``; see the module's documentation.

    Args:
        emulator: a started :class:`fcm_emu.Emulator` with TLS and MCS on (the defaults).
        project: the project it registers in (default: the demo project).
        vapid_key: bind its subscription to this VAPID public key (base64url), as a web app's
            ``getToken({vapidKey})`` does; Web Push publishers must then sign with its pair.
        timeout: seconds to wait for registration and login.
    """

    def __init__(self, emulator: Any, *, project: Optional[str] = None, vapid_key: Optional[str] = None, timeout: float = 30.0) -> None:
        try:
            import firebase_messaging  # noqa: F401
        except ImportError as error:  # pragma: no cover - depends on the environment
            raise RuntimeError('fcm_emu.Receiver needs firebase-messaging: pip install "fcm-emu[receiver]"') from error
        self.emulator = emulator
        self.project = project or emulator.demo_project_id
        self.vapid_key = vapid_key
        self.timeout = timeout
        self.messages: List[Dict[str, Any]] = []
        #: firebase-messaging's credentials (check-in, GCM and FCM registrations, keys) once registered.
        self.credentials: Optional[Dict[str, Any]] = None
        self.token: Optional[str] = None
        self._arrived = threading.Condition()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="fcm-emu-receiver", daemon=True)
        self._client: Any = None
        self._session: Any = None

    # -- lifecycle ------------------------------------------------------------------------------

    def __enter__(self) -> "Receiver":
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def connect(self) -> str:
        """Registers (the first time) and opens the MCS connection; returns the FCM token."""
        if not self._thread.is_alive():
            self._thread.start()
        self._point_at_emulator()
        return self._run(self._connect())

    def disconnect(self) -> None:
        """Closes the MCS connection: the device goes offline and FCM stores what comes next."""
        if self._client is not None:
            self._run(self._client.stop())
            self._client = None

    def close(self) -> None:
        """Disconnects and stops the background thread."""
        try:
            self.disconnect()
            if self._session is not None:
                self._run(self._session.close())
                self._session = None
        finally:
            if self._thread.is_alive():
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._thread.join(self.timeout)

    def wait_for(self, count: int = 1, timeout: float = 10.0) -> List[Dict[str, Any]]:
        """The first ``count`` messages the client's callback got (decrypted dicts), waiting for them."""
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self.messages) >= count, timeout):
                raise AssertionError(
                    f"the receiver got {len(self.messages)} message(s) in {timeout} s, wanted {count}: {self.messages!r}")
            return list(self.messages[:count])

    @property
    def endpoint(self) -> Optional[str]:
        """The Web Push endpoint of its subscription (``https://fcm.googleapis.com/fcm/send/…``)."""
        return None if self.credentials is None else "https://fcm.googleapis.com/fcm/send/" + self.credentials["gcm"]["token"]

    @property
    def subscription(self) -> Optional[Dict[str, Any]]:
        """Its subscription as a Web Push publisher (pywebpush) takes it."""
        if self.credentials is None:
            return None
        keys = self.credentials["keys"]
        return {"endpoint": self.endpoint, "keys": {"p256dh": keys["public"], "auth": keys["secret"]}}

    # -- inside ---------------------------------------------------------------------------------

    def _run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(self.timeout)

    def _point_at_emulator(self) -> None:
        """firebase-messaging's hosts are module constants, read when called: point them here."""
        from firebase_messaging import fcmpushclient, fcmregister

        tls = self.emulator.https_url
        mcs = self.emulator.ready.get("mcs") if isinstance(self.emulator.ready, dict) else None
        if not tls or not isinstance(mcs, dict):
            raise RuntimeError("the emulator needs TLS and MCS on (tlsPort, mcsPort) for a real receiver")
        fcmregister.GCM_CHECKIN_URL = tls + "/checkin"
        fcmregister.GCM_REGISTER_URL = tls + "/c2dm/register3"
        fcmregister.FCM_INSTALLATION = tls + "/v1/"
        fcmregister.FCM_REGISTRATION = tls + "/v1/"
        fcmpushclient.MCS_HOST = str(mcs.get("host") or "127.0.0.1")
        fcmpushclient.MCS_PORT = int(mcs["port"])
        context = ssl.create_default_context(cafile=self.emulator.ca_certificate)

        # Its MCS socket's hook (a static method taking the host, port and its own TLS context):
        # the same socket, trusting the emulator's CA.
        async def open_connection(host: str, port: int, **_: Any) -> Any:
            return await asyncio.open_connection(host=host, port=port, ssl=context)

        fcmpushclient.FcmPushClient._open_connection = staticmethod(open_connection)  # type: ignore[method-assign]
        self._ssl = context

    async def _connect(self) -> str:
        import aiohttp
        from firebase_messaging import FcmPushClient, FcmRegisterConfig

        sender = self.emulator.project(self.project).number
        config = FcmRegisterConfig(
            project_id=self.project, app_id=f"1:{sender}:web:fcmemu", api_key=API_KEY, messaging_sender_id=sender)
        if self.vapid_key:
            config.vapid_key = self.vapid_key
        if self._session is None:
            self._session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=self._ssl))
        client = FcmPushClient(self._on_message, config, self.credentials, http_client_session=self._session)
        self.token = await client.checkin_or_register()
        self.credentials = client.credentials
        await client.start()
        self._client = client
        await self._until_connected()
        return self.token

    async def _until_connected(self) -> None:
        """Waits (the control API's wait, woken by the event) until the emulator shows the MCS
        connection logged in: its device's state changes when it does."""
        project = self.emulator.project(self.project)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        seen = 0
        while loop.time() < deadline:
            device = await loop.run_in_executor(None, project.device, self.token)
            if (device.raw.get("receiver") or {}).get("connected"):
                return
            events = await loop.run_in_executor(
                None, lambda: project.events(device=device.id, kind="stateChanged", wait_for=seen + 1, timeout=2.0))
            seen = len(events)
        raise TimeoutError("the receiver did not log in to the emulator's MCS in time")

    def _on_message(self, message: Any, persistent_id: str, _context: Any = None) -> None:
        with self._arrived:
            self.messages.append(message if isinstance(message, dict) else {"message": message})
            self._arrived.notify_all()
