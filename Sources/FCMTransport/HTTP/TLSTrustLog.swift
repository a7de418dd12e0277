// SPDX-License-Identifier: Apache-2.0

import Logging
import NIOCore
import NIOSSL

/// Says, at warning level and with the fix, when a client ends the TLS handshake because it does
/// not trust the emulator's CA: the client's alert (unknown_ca,
/// bad_certificate, certificate_unknown) is all the server sees, and without this line an SDK
/// retries for minutes with no word from fcm-emu. Sits after the TLS handler on every TLS
/// listener (`ConnectionFloor`): the HTTPS port, which the proxy's CONNECTs are joined to, and
/// CCS; leaves at the first application data.
final class TLSTrustLog: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let logger: Logger
    private let sniffer: TLSAlertSniffer

    /// The log, which goes after the TLS handler, and the sniffer, which goes before it.
    static func pair(logger: Logger) -> (sniffer: TLSAlertSniffer, log: TLSTrustLog) {
        let sniffer = TLSAlertSniffer()
        return (sniffer, TLSTrustLog(logger: logger, sniffer: sniffer))
    }

    private init(logger: Logger, sniffer: TLSAlertSniffer) {
        self.logger = logger
        self.sniffer = sniffer
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let alert = Self.untrustedAlert(error) ?? sniffer.untrustedAlert, error is NIOSSLError {
            let peer = context.remoteAddress?.description ?? "a client"
            let text =
                "TLS handshake refused by \(peer): it does not trust fcm-emu's CA (\(alert)); run the client under `fcm-emu exec`, "
                + "or point it at the CA: SSL_CERT_FILE / REQUESTS_CA_BUNDLE / NODE_EXTRA_CA_CERTS=\"$(fcm-emu ca)\" "
                + "(`fcm-emu env` prints the whole set)"
            logger.warning("\(text)")
        }
        context.fireErrorCaught(error)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Application data comes only after a handshake that worked: nothing left to watch.
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        context.pipeline.syncOperations.removeHandler(sniffer, promise: nil)
    }

    /// The alert's name when `error` is a handshake the peer ended for want of trust in our chain.
    static func untrustedAlert(_ error: any Error) -> String? {
        guard let ssl = error as? NIOSSLError, case .handshakeFailed = ssl else { return nil }
        let text = "\(ssl)".uppercased()
        for (reason, name) in [
            ("ALERT_UNKNOWN_CA", "unknown_ca"), ("ALERT_BAD_CERTIFICATE", "bad_certificate"),
            ("ALERT_CERTIFICATE_UNKNOWN", "certificate_unknown"),
        ] where text.contains(reason) {
            return name
        }
        return nil
    }
}

/// Reads the TLS records a client sends before the handshake is done, for a plaintext alert: an
/// OpenSSL client that rejects our certificate under TLS 1.3 sends its alert unencrypted, which
/// the TLS handler reports only as a record it could not decrypt.
final class TLSAlertSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The header being read (up to 5 bytes), and what is left of the record's body.
    private var header: [UInt8] = []
    private var bodyLeft = 0
    private var alertBody: [UInt8]?
    private(set) var untrustedAlert: String?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if untrustedAlert == nil, let bytes = buffer.getBytes(at: buffer.readerIndex, length: buffer.readableBytes) { scan(bytes) }
        context.fireChannelRead(data)
    }

    private func scan(_ bytes: [UInt8]) {
        var index = 0
        while index < bytes.count {
            if bodyLeft > 0 {
                let take = min(bodyLeft, bytes.count - index)
                if alertBody != nil { alertBody?.append(contentsOf: bytes[index..<index + take]) }
                index += take
                bodyLeft -= take
                if bodyLeft == 0, let alert = alertBody {
                    alertBody = nil
                    if alert.count == 2, let name = [42: "bad_certificate", 46: "certificate_unknown", 48: "unknown_ca"][alert[1]] {
                        untrustedAlert = name
                    }
                }
                continue
            }
            header.append(bytes[index])
            index += 1
            if header.count == 5 {
                bodyLeft = Int(header[3]) << 8 | Int(header[4])
                alertBody = header[0] == 21 && bodyLeft == 2 ? [] : nil
                header.removeAll(keepingCapacity: true)
            }
        }
    }
}

@available(*, unavailable)
extension TLSTrustLog: Sendable {}

@available(*, unavailable)
extension TLSAlertSniffer: Sendable {}
