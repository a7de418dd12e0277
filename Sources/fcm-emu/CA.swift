// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FCMTransport
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FCMEmu {
    struct CA: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the path of the local CA certificate that signs the emulator's TLS certificates.",
            discussion: """
                The CA is made on first use and kept in the state directory, so you trust it once. Its leaf \
                certificates cover localhost, 127.0.0.1, ::1 and the Google host names the SDKs call (fcm, iid and \
                oauth2.googleapis.com, …), so those names can be pointed at the emulator.

                Examples:
                  curl --cacert "$(fcm-emu ca)" https://127.0.0.1:9093/emulator/v1/health
                  export SSL_CERT_FILE="$(fcm-emu ca)" REQUESTS_CA_BUNDLE="$(fcm-emu ca)"   # Python clients
                  export NODE_EXTRA_CA_CERTS="$(fcm-emu ca)"                                 # Node clients
                """
        )

        @Option(help: "The state directory (default ~/.fcm-emu, as serve uses).")
        var stateDir: String?

        func run() throws {
            let directory = stateDir ?? ProcessInfo.processInfo.environment["FCM_EMU_STATE_DIR"] ?? ServeOptions.defaultStateDirectory
            print(try TLSFiles.caCertificatePath(stateDirectory: directory))
        }
    }
}
