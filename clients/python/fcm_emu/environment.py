"""Making an unmodified Admin SDK in this process reach the emulator.

:class:`FirebaseEnvironment` sets, for as long as it is entered, what a user would configure by
hand, and restores every variable afterwards:

* ``GOOGLE_APPLICATION_CREDENTIALS``: a service-account key file from the emulator (its
  ``token_uri`` points at the emulator), ``GOOGLE_CLOUD_PROJECT``, ``GCLOUD_PROJECT`` and
  ``FIREBASE_CONFIG`` (``{"projectId": ...}``);
* ``SSL_CERT_FILE``, ``REQUESTS_CA_BUNDLE``, ``CURL_CA_BUNDLE``: a bundle made of the CAs the
  environment already trusted (those variables' files when set, else the system's and certifi's)
  followed by the emulator's CA, so that other HTTPS calls of the tests keep working;
* ``HTTPS_PROXY``/``https_proxy``: the emulator's HTTPS proxy, which joins CONNECTs to Google's
  API hosts to the emulator; ``NO_PROXY``/``no_proxy`` keep the entries already there except the
  ones that would exclude Google's hosts, plus loopback (for an emulator on another machine, the
  CA and the proxy are only those :func:`trust_plan` allows: what the user named, never what a
  plain HTTP answer says);
* an in-process name route for the clients that ignore proxies (firebase-admin's
  ``send_each_async`` mounts its own httpx transport, which takes no proxy): while entered,
  connections to Google's API hosts on port 443 go to the emulator's TLS port on 127.0.0.1 (the
  emulator's TLS certificate covers those names), and to the CCS hosts on 5235/5236 to its XMPP
  port (see :class:`GoogleRoute`). Other names resolve and connect as before.
"""

from __future__ import annotations

import json
import os
import socket
import ssl
import tempfile
import threading
import urllib.parse
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from .client import CA_FILE_ENV, is_loopback_url
from .errors import UntrustedEmulator

__all__ = ["FirebaseEnvironment", "GoogleRoute", "GOOGLE_API_HOSTS", "CCS_HOSTS", "ca_bundle", "TrustPlan",
           "trust_plan", "PROXY_ENV"]

#: Google hosts whose HTTPS (443) the emulator stands in for.
GOOGLE_API_HOSTS: Tuple[str, ...] = (
    "fcm.googleapis.com", "iid.googleapis.com", "oauth2.googleapis.com", "www.googleapis.com",
    "iamcredentials.googleapis.com", "accounts.google.com",
)
#: The XMPP connection server's hosts (ports 5235 and 5236).
CCS_HOSTS: Tuple[str, ...] = ("fcm-xmpp.googleapis.com", "gcm.googleapis.com")

CA_VARIABLES = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")
PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy")
NO_PROXY_VARIABLES = ("NO_PROXY", "no_proxy")
PROJECT_VARIABLES = ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT")
LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: The HTTPS proxy to set for an emulator on another machine (the address such an emulator reports
#: is never used).
PROXY_ENV = "FCM_EMU_PROXY"


@dataclass(frozen=True)
class TrustPlan:
    """What :class:`FirebaseEnvironment` takes from an emulator, decided by :func:`trust_plan`
    before anything is fetched."""

    #: The control API the plan is for.
    control_url: str
    #: Whether the emulator runs on this machine.
    local: bool
    #: A PEM file on this machine to add to the CA bundle.
    ca_file: Optional[str] = None
    #: Whether the CA is to be taken over the control API instead.
    download_ca: bool = False
    #: The value for ``HTTPS_PROXY``, if any.
    proxy_url: Optional[str] = None
    #: Why no CA can be had; :class:`FirebaseEnvironment` raises :class:`~fcm_emu.UntrustedEmulator` with it.
    refusal: Optional[str] = None
    #: What was left out and how to have it; :class:`FirebaseEnvironment` warns with each.
    warnings: Tuple[str, ...] = ()


def trust_plan(control_url: str, *, local: Optional[bool] = None, reported_ca: Optional[str] = None,
               reported_proxy: Optional[str] = None, ca_file: Optional[str] = None,
               proxy: Union[bool, str] = True, environ: Optional[Mapping[str, str]] = None) -> TrustPlan:
    """Decides which CA and which proxy to take for the emulator whose control API is
    ``control_url``; no file is read and nothing is sent.

    An emulator on this machine (``local``; by default a loopback ``control_url``) is the user's
    own: its reported CA file (or the CA over its control API) and proxy are taken as they are. For
    one elsewhere, the answer may come from whoever sits on the way, and the CA goes into the bundle
    of the whole process (it would be trusted for every name: a client cannot narrow what an
    existing CA certificate may sign), and the proxy would see every HTTPS connection. So:

    * the CA is the file the user names (``ca_file``, default ``$FCM_EMU_CA_FILE``), else the one
      the control API serves when that is ``https://`` (the TLS the user's own CAs verified vouches
      for it), else none: the plan carries a refusal naming the fix;
    * the proxy is the one the user names (``proxy`` as a URL, or ``$FCM_EMU_PROXY``), never the
      reported one (a warning says so). ``proxy=False``: none at all.

    A CA or proxy the user names is used for a local emulator too.
    """
    environ = os.environ if environ is None else environ
    local = is_loopback_url(control_url) if local is None else local
    encrypted = urllib.parse.urlsplit(control_url).scheme.lower() == "https"
    named_ca = ca_file or environ.get(CA_FILE_ENV) or None
    if isinstance(proxy, str):
        named_proxy: Optional[str] = proxy or None
    else:
        named_proxy = (environ.get(PROXY_ENV) or None) if proxy else None
    notes: List[str] = []
    refusal: Optional[str] = None
    plan_ca: Optional[str] = None
    download = False
    if named_ca:
        plan_ca = named_ca
    elif local:
        if reported_ca and os.path.isfile(reported_ca):
            plan_ca = reported_ca
        else:  # an emulator in a container on this machine: its files are not ours to read
            download = True
    elif encrypted:
        download = True
    else:
        refusal = (f"fcm-emu: the emulator at {control_url} is not on this machine and its control API is plain HTTP, "
                   "so its CA certificate is not taken from there: whoever answers at that address would be trusted "
                   f"for every HTTPS name in this process. Name the CA yourself: {CA_FILE_ENV}=/path/to/ca.pem (or "
                   "--fcm-emu-ca-file), a copy of that emulator's ca.pem (`fcm-emu ca` on its machine says where it "
                   "is; in a container, its state directory), or reach its control API over https:// or loopback.")
    if not proxy:
        plan_proxy = None
    elif named_proxy:
        plan_proxy = named_proxy
    elif local:
        plan_proxy = reported_proxy
    else:
        plan_proxy = None
        if reported_proxy:
            notes.append(f"fcm-emu: HTTPS_PROXY is not set to the proxy {reported_proxy} that the emulator at "
                         f"{control_url} reported: that emulator is not on this machine, and a proxy taken from its "
                         "answer would see every HTTPS connection of this process. To use a proxy, name it: "
                         f"{PROXY_ENV}=http://HOST:PORT (or --fcm-emu-proxy).")
    return TrustPlan(control_url=control_url, local=local, ca_file=plan_ca, download_ca=download,
                     proxy_url=plan_proxy, refusal=refusal, warnings=tuple(notes))


def _read(path: str) -> Optional[str]:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _default_bundles() -> List[str]:
    """The CA files this process trusts when no variable names one: the system's, then certifi's
    (requests' default) when it is installed."""
    found: List[str] = []
    paths = ssl.get_default_verify_paths()
    for candidate in (paths.cafile, paths.openssl_cafile):
        if candidate and os.path.isfile(candidate) and candidate not in found:
            found.append(candidate)
    try:  # requests uses certifi when REQUESTS_CA_BUNDLE is unset
        import certifi

        where = certifi.where()
        if os.path.isfile(where) and where not in found:
            found.append(where)
    except Exception:
        pass
    return found


def ca_bundle(extra_ca: str, out: Union[str, Path], environ: Optional[Mapping[str, str]] = None) -> Tuple[Path, List[str]]:
    """Writes ``out``: the CAs already trusted (the files named by ``SSL_CERT_FILE``,
    ``REQUESTS_CA_BUNDLE`` and ``CURL_CA_BUNDLE`` in ``environ``, or the system's and certifi's when
    none is set), then the PEM file ``extra_ca``. Returns the path and the files it drew from."""
    environ = os.environ if environ is None else environ
    sources: List[str] = []
    for name in CA_VARIABLES:
        value = environ.get(name)
        if value and os.path.isfile(value) and os.path.realpath(value) not in map(os.path.realpath, sources):
            sources.append(value)
    if not sources:
        sources = _default_bundles()
    parts: List[str] = []
    for source in sources:
        text = _read(source)
        if text:
            parts.append(f"# from {source}\n" + text.rstrip("\n") + "\n")
    emulator_ca = _read(extra_ca)
    if not emulator_ca:
        raise FileNotFoundError(f"the emulator's CA certificate {extra_ca} cannot be read")
    parts.append("# fcm-emu's local CA\n" + emulator_ca.rstrip("\n") + "\n")
    path = Path(out)
    path.write_text("".join(parts), encoding="utf-8")
    return path, sources


def _excludes_google(entry: str) -> bool:
    entry = entry.strip().lower()
    if not entry:
        return False
    if entry == "*":
        return True
    host = entry.split(":", 1)[0] if entry.count(":") == 1 else entry
    host = host.lstrip("*").lstrip(".")
    if not host:
        return False
    return any(h == host or h.endswith("." + host) for h in GOOGLE_API_HOSTS + CCS_HOSTS)


def no_proxy_value(current: Optional[str]) -> str:
    """``current``'s entries without those excluding Google's hosts (``*``, ``.googleapis.com``,
    ...), plus loopback."""
    entries = [e.strip() for e in (current or "").split(",") if e.strip() and not _excludes_google(e)]
    for loopback in LOOPBACK:
        if loopback not in entries:
            entries.append(loopback)
    return ",".join(entries)


_Resolver = Callable[..., List[Tuple[Any, ...]]]

#: The address Google's routed names resolve to while a route is installed. Nothing listens there:
#: a connect to it on a routed port is redirected to the emulator (127.0.0.1 and its port).
ROUTE_ADDRESS = "127.70.67.77"


class GoogleRoute:
    """An in-process name route to the emulator, for clients that ignore proxies.

    While installed, ``socket.getaddrinfo`` answers for Google's API hosts on 443 (and the CCS hosts
    on 5235/5236) with :data:`ROUTE_ADDRESS`, keeping the port, and ``socket.socket.connect`` /
    ``connect_ex`` send a connection to that address and port to the emulator's TLS (or XMPP) port
    on ``host``. Both are needed: asyncio clients (httpx through anyio) keep the port they asked
    for and only take the address from the resolver. The TLS server name stays Google's, which the
    emulator's certificate covers.

    It is process-wide while installed (every thread, asyncio's resolver threads too), and
    :meth:`uninstall` puts the previous functions back. Routes nest.
    """

    _lock = threading.Lock()

    def __init__(self, tls_port: int, *, host: str = "127.0.0.1", xmpp_port: Optional[int] = None,
                 https_hosts: Sequence[str] = GOOGLE_API_HOSTS, ccs_hosts: Sequence[str] = CCS_HOSTS) -> None:
        self.address = host
        self.names: Dict[Tuple[str, int], int] = {}
        for name in https_hosts:
            self.names[(name, 443)] = tls_port
        if xmpp_port is not None:
            for name in ccs_hosts:
                self.names[(name, 5235)] = xmpp_port
                self.names[(name, 5236)] = xmpp_port
        self.ports: Dict[int, int] = {port: target for (_name, port), target in self.names.items()}
        self._previous_resolver: Optional[_Resolver] = None
        self._previous_connect: Any = None
        self._previous_connect_ex: Any = None
        self._installed: Tuple[Any, Any, Any] = (None, None, None)
        self._active = False

    @staticmethod
    def _port(port: Any) -> Optional[int]:
        if isinstance(port, bytes):
            port = port.decode("ascii", "replace")
        if isinstance(port, str):
            port = {"https": "443"}.get(port, port)
            try:
                return int(port)
            except ValueError:
                return None
        return port if isinstance(port, int) else None

    def target(self, host: Any, port: Any) -> Optional[int]:
        """The emulator port that ``host:port`` goes to, or ``None`` when it is not routed."""
        if isinstance(host, bytes):
            host = host.decode("ascii", "replace")
        number = self._port(port)
        if not isinstance(host, str) or number is None:
            return None
        return self.names.get((host.rstrip(".").lower(), number))

    def redirect(self, address: Any) -> Any:
        """The address a connect to ``address`` really goes to."""
        if self._active and isinstance(address, tuple) and len(address) >= 2 and address[0] == ROUTE_ADDRESS:
            target = self.ports.get(address[1])
            if target is not None:
                return (self.address, target)
        return address

    def install(self) -> "GoogleRoute":
        """Starts answering for the routed names."""
        with self._lock:
            if self._active:
                return self
            previous_resolver = socket.getaddrinfo
            previous_connect = socket.socket.connect
            previous_connect_ex = socket.socket.connect_ex
            route = self

            def getaddrinfo(host: Any, port: Any, family: int = 0, type: int = 0, proto: int = 0,
                            flags: int = 0) -> List[Tuple[Any, ...]]:
                if route._active and route.target(host, port) is not None:
                    if family not in (0, socket.AF_INET):
                        # IPv6 only: no answer, rather than Google's real address.
                        raise socket.gaierror(socket.EAI_NONAME, "routed to fcm-emu over IPv4 only")
                    number = route._port(port)
                    kind = type or socket.SOCK_STREAM
                    return [(socket.AF_INET, kind, proto or socket.IPPROTO_TCP, "", (ROUTE_ADDRESS, number))]
                return previous_resolver(host, port, family, type, proto, flags)

            def connect(sock: socket.socket, address: Any) -> None:
                return previous_connect(sock, route.redirect(address))

            def connect_ex(sock: socket.socket, address: Any) -> int:
                return int(previous_connect_ex(sock, route.redirect(address)))

            self._previous_resolver = previous_resolver
            self._previous_connect = previous_connect
            self._previous_connect_ex = previous_connect_ex
            self._installed = (getaddrinfo, connect, connect_ex)
            self._active = True
            socket.getaddrinfo = getaddrinfo
            socket.socket.connect = connect  # type: ignore[method-assign, assignment]
            socket.socket.connect_ex = connect_ex  # type: ignore[method-assign, assignment]
        return self

    def uninstall(self) -> None:
        """Stops answering and restores the previous functions (those nobody replaced since; a
        replaced one stays in the chain, inactive)."""
        with self._lock:
            if not self._active:
                return
            self._active = False
            getaddrinfo, connect, connect_ex = self._installed
            if socket.getaddrinfo is getaddrinfo:
                socket.getaddrinfo = self._previous_resolver  # type: ignore[assignment]
            if socket.socket.connect is connect:
                socket.socket.connect = self._previous_connect  # type: ignore[method-assign, assignment]
            if socket.socket.connect_ex is connect_ex:
                socket.socket.connect_ex = self._previous_connect_ex  # type: ignore[method-assign, assignment]

    def __enter__(self) -> "GoogleRoute":
        return self.install()

    def __exit__(self, *exc: object) -> None:
        self.uninstall()


class FirebaseEnvironment:
    """The environment (and name route) that points an unmodified Admin SDK at the emulator.

    Args:
        emulator: a started or attached :class:`~fcm_emu.Emulator` (the proxy, TLS and CA come from
            its ready file or ``info``).
        project_id: the project whose service account the SDK uses.
        directory: where the key file and CA bundle are written (a private temp dir by default,
            inside the emulator's own work directory when this process started it, so that it goes
            with the emulator even when this process is killed).
        proxy: set ``HTTPS_PROXY`` to the emulator's proxy (when it has one); a URL: to that proxy.
        route: install the in-process :class:`GoogleRoute` (when the emulator serves TLS).
        ca_file: the emulator's CA certificate (default: the client's ``ca_file``, i.e.
            ``$FCM_EMU_CA_FILE``).

    For an emulator on another machine, the CA and the proxy are only those :func:`trust_plan`
    allows: entering raises :class:`~fcm_emu.UntrustedEmulator` (naming the fix) when no CA may be
    had, and warns when a reported proxy is left out.

    Use it as a context manager; on exit every variable it touched is restored (or removed) and
    the route is uninstalled. Attributes: ``key_file``, ``ca_bundle``, ``project_id``,
    ``proxy_url``, ``route``, ``variables`` (what was set), ``trust`` (the :class:`TrustPlan`).
    """

    def __init__(self, emulator: Any, project_id: str, *, directory: Union[str, Path, None] = None,
                 proxy: Union[bool, str] = True, route: bool = True, ca_file: Optional[str] = None) -> None:
        self.emulator = emulator
        self.project_id = project_id
        self._directory = Path(directory) if directory is not None else None
        self._own_directory = directory is None
        self.use_proxy = proxy
        self.use_route = route
        self._ca_file = ca_file
        self.trust: Optional[TrustPlan] = None
        self.key_file: Optional[Path] = None
        self.ca_bundle: Optional[Path] = None
        self.ca_sources: List[str] = []
        self.proxy_url: Optional[str] = None
        self.route: Optional[GoogleRoute] = None
        self.variables: Dict[str, str] = {}
        self._saved: Dict[str, Optional[str]] = {}

    def _set(self, name: str, value: str) -> None:
        if name not in self._saved:
            self._saved[name] = os.environ.get(name)
        os.environ[name] = value
        self.variables[name] = value

    def plan(self) -> TrustPlan:
        """The :class:`TrustPlan` for this environment's emulator (nothing is fetched)."""
        client = self.emulator.client
        local = getattr(client, "local", None)
        return trust_plan(client.base_url, local=local, reported_ca=self.emulator.ca_certificate,
                          reported_proxy=self.emulator.proxy_url,
                          ca_file=self._ca_file or getattr(client, "ca_file", None), proxy=self.use_proxy)

    def __enter__(self) -> "FirebaseEnvironment":
        trust = self.trust = self.plan()
        if trust.refusal:
            raise UntrustedEmulator(trust.refusal, url=trust.control_url)
        for note in trust.warnings:
            warnings.warn(note, UserWarning, stacklevel=2)
        if self._directory is None:
            workdir = getattr(self.emulator, "workdir", None)
            inside = str(workdir) if workdir is not None and os.path.isdir(workdir) else None
            self._directory = Path(tempfile.mkdtemp(prefix="fcm-emu-env-", dir=inside))
        directory = self._directory
        try:
            key = self.emulator.client.service_account(self.project_id)
            self.key_file = directory / f"{self.project_id}-service-account.json"
            self.key_file.write_text(json.dumps(key, indent=2), encoding="utf-8")
            os.chmod(self.key_file, 0o600)
            self._set("GOOGLE_APPLICATION_CREDENTIALS", str(self.key_file))
            for name in PROJECT_VARIABLES:
                self._set(name, self.project_id)
            self._set("FIREBASE_CONFIG", json.dumps({"projectId": self.project_id}))
            ca = trust.ca_file
            if trust.download_ca:
                # A local emulator whose files this process cannot read (a container), or one
                # elsewhere whose https:// control API the user's CAs verified.
                local_ca = directory / "fcm-emu-ca.pem"
                local_ca.write_text(self.emulator.client.ca_certificate(), encoding="ascii")
                ca = str(local_ca)
            if ca:
                self.ca_bundle, self.ca_sources = ca_bundle(ca, directory / "ca-bundle.pem")
                for name in CA_VARIABLES:
                    self._set(name, str(self.ca_bundle))
            self.proxy_url = trust.proxy_url
            if self.proxy_url:
                for name in PROXY_VARIABLES:
                    self._set(name, self.proxy_url)
                current = os.environ.get("NO_PROXY") or os.environ.get("no_proxy")
                for name in NO_PROXY_VARIABLES:
                    self._set(name, no_proxy_value(current))
            tls_port = self.emulator.tls_port
            if self.use_route and tls_port:
                ports = self.emulator.xmpp_ports
                self.route = GoogleRoute(tls_port, xmpp_port=ports[0] if ports else None).install()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self.route is not None:
            self.route.uninstall()
            self.route = None
        for name, value in self._saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        self._saved.clear()
        if self._own_directory and self._directory is not None:
            import shutil

            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None
