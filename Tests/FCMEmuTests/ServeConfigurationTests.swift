// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTesting
import Foundation
import Testing

@testable import fcm_emu

@Suite("serve configuration: defaults < config file < environment < flags")
struct ServeConfigurationTests {
    private func write(_ text: String) throws -> String {
        let path = try ScratchDirectory("serve-config").sub("config.yaml")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func defaultsListenOnLoopbackWithTheDemoProject() throws {
        let (options, file) = try FCMEmu.Serve.parse([]).resolve(environment: [:])
        #expect(options.server.host == "127.0.0.1")
        #expect(options.server.httpPort == 9092)
        #expect(options.settings == EmulatorSettings())
        #expect(file == nil)
    }

    @Test func laterSourcesWin() throws {
        let config = try write("port: 1111\nseed: 5\ndozeMaintenanceInterval: 5m\nclockSpeed: 2\n")
        let serve = try FCMEmu.Serve.parse(["--config", config, "--port", "3333", "--set", "randomEviction=true"])
        let (options, _) = try serve.resolve(environment: [
            "FCM_EMU_PORT": "2222", "FCM_EMU_SEED": "9", "FCM_EMU_DEVICE_RATE_LIMIT": "240/1m",
        ])
        #expect(options.server.httpPort == 3333)
        #expect(options.settings.seed == 9)
        #expect(options.settings.dozeMaintenanceIntervalSeconds == 300)
        #expect(options.settings.randomEviction)
        #expect(options.settings.deviceRateLimit == .init(messages: 240, windowSeconds: 60))
        #expect(options.clockSpeed == 2)
    }

    @Test func badValuesNameTheirSource() throws {
        #expect { try FCMEmu.Serve.parse(["--set", "port=http"]).resolve(environment: [:]) } throws: {
            "\($0)".contains("--set: port: expected a port number")
        }
        #expect { try FCMEmu.Serve.parse([]).resolve(environment: ["FCM_EMU_DOZE_MAINTENANCE_INTERVAL": "soon"]) } throws: {
            "\($0)".contains("FCM_EMU_DOZE_MAINTENANCE_INTERVAL: dozeMaintenanceInterval: expected a duration")
        }
        #expect { try FCMEmu.Serve.parse(["--set", "colour=blue"]).resolve(environment: [:]) } throws: {
            "\($0)".contains("unknown setting 'colour'")
        }
    }

    @Test func configFileUnknownKeysCiteTheLine() throws {
        let config = try write("port: 1\nprot: 2\n")
        #expect { try FCMEmu.Serve.parse(["--config", config]).resolve(environment: [:]) } throws: {
            "\($0)".contains(":2: unknown setting 'prot'")
        }
    }

    @Test func preloadCreatesProjectsAndDevices() throws {
        let path = try write(
            """
            projects:
              - id: my-app
                number: "4242"
            devices:
              - {project: my-app, platform: android, name: pixel, state: offline, topics: [news]}
              - {platform: ios, name: phone}
            """)
        let emulator = Emulator()
        try ConfigFile.load(path: path).preload(into: emulator)
        #expect(try emulator.device("pixel", projectId: "my-app").state == .offline)
        #expect(try emulator.device("pixel", projectId: "my-app").topics == ["news"])
        #expect(try emulator.device("phone", projectId: DemoProject.id).platform == .ios)
    }

    @Test func preloadErrorsCiteTheLine() throws {
        let path = try write("devices:\n  - {platform: android, colour: red}\n")
        #expect { try ConfigFile.load(path: path) } throws: { "\($0)".contains(":2: unknown key 'colour'") }
        let bad = try write("devices:\n  - {platform: ios, state: doze}\n")
        #expect { try ConfigFile.load(path: bad).preload(into: Emulator()) } throws: { "\($0)".contains("Doze is an Android state") }
    }
}
