// SPDX-License-Identifier: Apache-2.0

import FCMHTTP
import FCMJSON
import FCMTransport
import FCMXMPP
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The Python name route: clients that ignore `HTTPS_PROXY` (aiohttp with `trust_env=False`,
/// firebase-admin's `send_each_async` over httpx HTTP/2, raw `asyncio.open_connection`) still
/// resolve names through `socket.getaddrinfo`. `exec` puts a `sitecustomize.py` first on
/// `PYTHONPATH` that answers lookups of Google's names with the emulator's loopback address and
/// port, from the table in `FCM_EMU_NAME_ROUTES` (docs/unmodified-apps.md, "The Python name route").
enum NameRoute {
    static let variable = "FCM_EMU_NAME_ROUTES"
    static let pythonPath = "PYTHONPATH"
    /// Where firebase-messaging's MCS client connects (docs/reference/receivers-protocols.md §5).
    static let mcsHost = "mtalk.google.com"
    static let mcsPort = 5228

    /// `host:port` → `address:port` for every name the emulator stands in for, from its info
    /// document: Google's HTTPS hosts on 443 → the TLS port; the CCS hosts on FCM's ports → the
    /// XMPP listeners, in the order the proxy pairs them (`Serve.startProxy`); `mtalk.google.com:5228`
    /// → the MCS port, once the info document has one (`mcs.port`).
    static func routes(info: JSONValue) -> [(String, String)] {
        var out: [(String, String)] = []
        if let https = info["https"], let port = https["port"]?.int64Value {
            let to = target(https["host"]?.stringValue, port)
            out += FrontHosts.https.map { ("\($0):443", to) }
        }
        if let xmpp = info["xmpp"], let ports = xmpp["ports"]?.arrayValue?.compactMap(\.int64Value) {
            for (fcmPort, port) in zip(XMPPServer.fcmPorts, ports) {
                let to = target(xmpp["host"]?.stringValue, port)
                out += XMPPServer.hosts.map { ("\($0):\(fcmPort)", to) }
            }
        }
        if let mcs = info["mcs"], let port = mcs["port"]?.int64Value {
            out.append(("\(mcsHost):\(mcsPort)", target(mcs["host"]?.stringValue ?? info["http"]?["host"]?.stringValue, port)))
        }
        return out
    }

    /// The table as `FCM_EMU_NAME_ROUTES` carries it: a JSON object.
    static func table(_ routes: [(String, String)]) -> String {
        JSONValue.object(routes.map { ($0.0, .string($0.1)) }).encoded()
    }

    /// Ours first, then the caller's entries, which keep their order (an empty one adds nothing).
    static func pythonPath(directory: String, preset: String?) -> String {
        guard let preset, !preset.isEmpty else { return directory }
        return directory + ":" + preset
    }

    /// Writes `sitecustomize.py` into `directory` (a new file renamed into place, `PrivateFiles`).
    static func write(to directory: String) throws {
        try PrivateFiles.write(Array(sitecustomize.utf8), to: directory + "/sitecustomize.py", mode: 0o644)
    }

    /// Where a listener bound to every address is reached from this machine; an IPv6 address in
    /// brackets, as the table's `host:port` form needs.
    private static func target(_ host: String?, _ port: Int64) -> String {
        let address: String
        switch host ?? "" {
        case "", "0.0.0.0", "localhost": address = "127.0.0.1"
        case "::", "[::]": address = "::1"
        case let other: address = other
        }
        return address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
    }

    /// The module itself: Python 3 only, nothing outside the standard library.
    static let sitecustomize = #"""
        # Written by `fcm-emu exec` into its private directory, which it puts first on PYTHONPATH: Python's
        # site module imports the first `sitecustomize` on sys.path at start (docs.python.org, "site"), so
        # every Python process the command starts loads this one. It routes lookups of Google's names, listed
        # in FCM_EMU_NAME_ROUTES, to the emulator's loopback ports (docs/unmodified-apps.md, "The Python
        # name route"), then runs the next sitecustomize on sys.path (yours or the distribution's), so
        # none is shadowed. Nothing here may stop the interpreter: a bad table is one line on stderr.


        def _fcm_emu_name_route():
            import json
            import os
            import socket
            import sys

            raw = os.environ.get("FCM_EMU_NAME_ROUTES")
            if not raw:
                return

            def host_name(host):
                # asyncio and urllib3 pass str, anyio and some callers the IDNA bytes; one trailing dot
                # names the same host (RFC 1034 section 3.1).
                if isinstance(host, (bytes, bytearray)):
                    host = bytes(host).decode("ascii", "replace")
                if not isinstance(host, str):
                    return None
                host = host.lower()
                return host[:-1] if host.endswith(".") else host

            def split(text, what):
                if not isinstance(text, str):
                    raise ValueError("%s %r is not a string" % (what, text))
                host, _, port = text.rpartition(":")
                if host.startswith("[") and host.endswith("]"):
                    host = host[1:-1]
                if not host or not port.isdigit() or not 0 < int(port) < 65536:
                    raise ValueError("%s %r is not host:port" % (what, text))
                return host, int(port)

            try:
                table = json.loads(raw)
                if not isinstance(table, dict):
                    raise ValueError("not a JSON object")
                routes = {}
                for name, target in table.items():
                    host, port = split(name, "name")
                    routes[(host_name(host), port)] = split(target, "target")
            except Exception as error:
                sys.stderr.write("fcm-emu name route: FCM_EMU_NAME_ROUTES is not a route table (%s); names resolve as usual\n" % error)
                return
            hosts = set(host for host, _ in routes)
            services = {}

            def port_number(port):
                if isinstance(port, bool):
                    return None
                if isinstance(port, int):
                    return port
                if isinstance(port, (bytes, bytearray)):
                    port = bytes(port).decode("ascii", "replace")
                if not isinstance(port, str):
                    return None
                if port.isdigit():
                    return int(port)
                if port not in services:
                    # A service name ("https"), as getaddrinfo takes it: looked up once, in /etc/services.
                    try:
                        services[port] = socket.getservbyname(port, "tcp")
                    except (OSError, UnicodeError):
                        services[port] = None
                return services[port]

            def target(host, port):
                name = host_name(host)
                if name not in hosts:
                    return None, None
                return name, routes.get((name, port_number(port)))

            original = socket.getaddrinfo

            def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
                name, to = target(host, port)
                if to is None:
                    return original(host, port, family, type, proto, flags)
                # The emulator's address and port, with the caller's family, type, protocol and flags: an
                # AF_INET6-only lookup of an IPv4 loopback fails as a name with no AAAA record would,
                # rather than reach the real Google. TLS still names the host (SNI, the certificate check).
                infos = original(to[0], to[1], family, type, proto, flags)
                if flags & socket.AI_CANONNAME:
                    infos = [(f, t, p, name if i == 0 else "", a) for i, (f, t, p, _, a) in enumerate(infos)]
                return infos

            getaddrinfo.__wrapped__ = original
            getaddrinfo.__doc__ = original.__doc__
            getaddrinfo.fcm_emu_routes = dict(("%s:%d" % key, "%s:%d" % value) for key, value in routes.items())
            socket.getaddrinfo = getaddrinfo

            def route_aiohttp(module):
                # aiohttp's AsyncResolver (its default when aiodns is installed, aiohttp resolver.py) asks
                # c-ares, not getaddrinfo: a routed name is answered from the table instead, as aiohttp's
                # own ThreadedResolver would answer it; anything else goes to c-ares as before.
                resolver = getattr(module, "AsyncResolver", None)
                if resolver is None:
                    return

                def wrap(method):
                    async def resolve(self, host, port=0, family=socket.AF_INET):
                        if target(host, port)[1] is None:
                            return await method(self, host, port, family)
                        numeric = socket.AI_NUMERICHOST | socket.AI_NUMERICSERV
                        return [dict(hostname=host, host=address[0], port=address[1], family=f, proto=p, flags=numeric)
                                for f, _, p, _, address in getaddrinfo(host, port, family, socket.SOCK_STREAM)]
                    resolve.__wrapped__ = method
                    return resolve

                for name in ("resolve", "_resolve_with_query"):
                    method = resolver.__dict__.get(name)
                    if method is not None:
                        setattr(resolver, name, wrap(method))

            def route_anyio(module):
                # anyio's connect_tcp (httpx's and httpcore's async connections, so firebase-admin's
                # send_each_async) resolves the name but connects to the address with the port it was
                # given (anyio _core/_sockets.py), so the table's port would be lost: a listed name and
                # port are replaced here, and TLS still checks the name, as anyio would have by default.
                method = getattr(module, "connect_tcp", None)
                if method is None:
                    return
                sockets = sys.modules.get("anyio._core._sockets")

                async def connect_tcp(remote_host, remote_port, **options):
                    to = target(remote_host, remote_port)[1]
                    if to is not None:
                        if options.get("tls_hostname") is None and (options.get("tls") or options.get("ssl_context") is not None):
                            options["tls_hostname"] = remote_host
                        remote_host, remote_port = to
                    return await method(remote_host, remote_port, **options)

                connect_tcp.__wrapped__ = method
                connect_tcp.__doc__ = method.__doc__
                module.connect_tcp = connect_tcp
                if sockets is not None and getattr(sockets, "connect_tcp", None) is method:
                    sockets.connect_tcp = connect_tcp

            class ImportHook(object):
                # Wraps each module of `pending` once, when it is first imported: the module is loaded
                # by its own loader as always, and wrapped right after it ran. A find_spec with no import
                # after it (a check that a package is installed) wraps nothing.
                pending = {"aiohttp.resolver": route_aiohttp, "anyio": route_anyio}

                def find_spec(self, fullname, path=None, target=None):
                    if fullname not in self.pending:
                        return None
                    for finder in sys.meta_path:
                        find = getattr(finder, "find_spec", None) if finder is not self else None
                        spec = find(fullname, path, target) if find else None
                        if spec is not None:
                            break
                    else:
                        return None
                    run = getattr(spec.loader, "exec_module", None)
                    if run is None:
                        return spec
                    pending = self.pending

                    def exec_module(module):
                        run(module)
                        route = pending.pop(fullname, None)
                        if not pending and self in sys.meta_path:
                            sys.meta_path.remove(self)
                        try:
                            if route is not None:
                                route(module)
                        except Exception as error:
                            sys.stderr.write("fcm-emu name route: %s is not routed (%s)\n" % (fullname, error))
                    try:
                        spec.loader.exec_module = exec_module
                    except Exception:
                        pass
                    return spec

            hook = ImportHook()
            for name in list(hook.pending):
                if name in sys.modules:
                    hook.pending.pop(name)(sys.modules[name])
            if hook.pending:
                sys.meta_path.insert(0, hook)


        def _fcm_emu_next_sitecustomize():
            # The sitecustomize this one stands in front of: the first after this directory on sys.path.
            # It is run as `sitecustomize` (site.py reports its errors as it always does), and it is the
            # module `import sitecustomize` finds from then on.
            import importlib.machinery
            import importlib.util
            import os
            import sys

            here = os.path.dirname(os.path.abspath(__file__))

            def ours(entry):
                try:
                    return os.path.samefile(entry or os.curdir, here)
                except (OSError, TypeError, ValueError):
                    return False

            try:
                places = [entry for entry in sys.path if isinstance(entry, str)]
                first = next((index for index, entry in enumerate(places) if ours(entry)), -1)
                rest = [entry for entry in places[first + 1:] if not ours(entry)]
                spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
            except Exception as error:
                sys.stderr.write("fcm-emu name route: the next sitecustomize on sys.path is not run (%s)\n" % error)
                return
            if spec is None or spec.loader is None:
                return
            module = importlib.util.module_from_spec(spec)
            sys.modules["sitecustomize"] = module
            spec.loader.exec_module(module)


        try:
            _fcm_emu_name_route()
        except Exception as _error:
            import sys as _sys

            _sys.stderr.write("fcm-emu name route: not installed (%s)\n" % _error)
        _fcm_emu_next_sitecustomize()
        """#
}
