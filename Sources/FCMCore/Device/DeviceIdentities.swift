// SPDX-License-Identifier: Apache-2.0

/// Where devices' registration tokens and FIDs are. The ones the emulator makes are derived from
/// the device's index (`DerivedIdentifiers`) and kept nowhere; the ones it is given (by the
/// control API, a snapshot, or a real receiver's registration) are kept here, and a project's
/// `devicesByFid` finds the given FIDs. A device's `givenToken` and `givenFid` say which.
struct DeviceIdentities: Sendable {
    let derived: DerivedIdentifiers
    /// Given tokens by device, valid or not.
    var givenTokens: [DeviceID: String] = [:]
    /// The valid ones among them, by token.
    var deviceByGivenToken: [String: DeviceID] = [:]
    /// Given FIDs by device.
    var givenFids: [DeviceID: String] = [:]

    init(seed: UInt64) { derived = DerivedIdentifiers(seed: seed) }
}

extension World {
    /// How many derived tokens a new one may skip because a given or retired token took its
    /// place: only a snapshot or a caller that copied derived tokens can make one collide.
    static let tokenGenerationAttempts = 16

    func token(of device: borrowing Device) -> String {
        if device.givenToken { return identities.givenTokens[device.id] ?? "" }
        return identities.derived.token(device: device.id, generation: device.tokenGeneration, givenFid: givenFid(of: device))
    }

    func fid(of device: borrowing Device) -> String {
        givenFid(of: device) ?? identities.derived.fid(device: device.id)
    }

    func givenFid(of device: borrowing Device) -> String? {
        device.givenFid ? identities.givenFids[device.id] ?? "" : nil
    }

    /// The device whose current token `token` is, while that token is valid.
    func deviceID(forToken token: String) -> DeviceID? {
        if let owner = identities.derived.tokenOwner(token), Int(owner.device) < devices.count {
            // Fields read where they lie: binding `devices[i]` would copy the whole device.
            let slot = Int(owner.device)
            // Nil when that token is not the device's current, valid one; else whether its FID was given.
            let fidGiven = devices.withUnsafeBufferPointer { all -> Bool? in
                guard all[slot]?.givenToken == false, all[slot]?.tokenValid == true, all[slot]?.tokenGeneration == owner.generation
                else { return nil }
                return all[slot]?.givenFid == true
            }
            if let fidGiven {
                let fid = fidGiven ? identities.givenFids[owner.device] : nil
                if identities.derived.isToken(token, device: owner.device, generation: owner.generation, givenFid: fid) {
                    return owner.device
                }
            }
        }
        return identities.deviceByGivenToken[token]
    }

    /// Whether `token` names a device now or named one before: a new token must be neither.
    func isIssued(_ token: String) -> Bool {
        deviceID(forToken: token) != nil || retiredTokens[token] != nil
    }

    /// The device of project `projectIndex` whose FID `fid` is; any project's when nil.
    func deviceID(forFid fid: String, projectIndex: Int32?) -> DeviceID? {
        if let id = identities.derived.fidOwner(fid), Int(id) < devices.count, let device = devices[Int(id)], !device.givenFid,
            projectIndex == nil || device.projectIndex == projectIndex
        {
            return id
        }
        if let projectIndex {
            return projects.indices.contains(Int(projectIndex)) ? projects[Int(projectIndex)]?.devicesByFid[fid] : nil
        }
        for case let state? in projects { if let id = state.devicesByFid[fid] { return id } }
        return nil
    }

    /// The device's first derived token from `generation` on not yet issued, and its generation.
    func nextDerivedToken(device: DeviceID, givenFid: String?, after generation: UInt32) -> (token: String, generation: UInt32)? {
        var next = generation
        for _ in 0..<Self.tokenGenerationAttempts {
            let token = identities.derived.token(device: device, generation: next, givenFid: givenFid)
            if !isIssued(token) { return (token, next) }
            next &+= 1
        }
        return nil
    }

    /// Makes `token` the device's current token: given when `generation` is nil, else the
    /// derived one of that generation. The caller retires the old one first.
    mutating func setToken(_ token: String, generation: UInt32?, of device: inout Device) {
        if device.givenToken {
            identities.givenTokens[device.id] = nil
        }
        if let generation {
            device.givenToken = false
            device.tokenGeneration = generation
        } else {
            device.givenToken = true
            identities.givenTokens[device.id] = token
            if device.tokenValid { identities.deviceByGivenToken[token] = device.id }
        }
    }

    /// Stops `token` naming the device as a valid token (it was its current one).
    mutating func dropValidToken(_ token: String, of device: borrowing Device) {
        if device.givenToken { identities.deviceByGivenToken[token] = nil }
    }
}
