// SPDX-License-Identifier: Apache-2.0

extension World {
    mutating func createProject(id: String, number: String?, serverKeys: [String]) throws(FCMError) -> Project {
        guard Project.isValidId(id) else {
            throw FCMError(
                .invalidArgument, "Project id '\(id)' must be 4–30 lower-case letters, digits or hyphens, starting with a letter",
                field: "id")
        }
        try Project.checkServerKeys(serverKeys)
        guard projectIndexById[id] == nil else { throw FCMError(.conflict, "Project '\(id)' already exists", field: "id") }
        guard projectIndexById.count < settings.maxProjects else {
            throw .limitReached("projects", cap: settings.maxProjects, setting: "maxProjects", field: "id")
        }
        let number = number ?? freeProjectNumber()
        guard Project.isValidNumber(number) else {
            throw FCMError(.invalidArgument, "Project number '\(number)' must be 1–20 decimal digits", field: "number")
        }
        guard projectIndexByNumber[number] == nil else {
            throw FCMError(.conflict, "Project number \(number) is already used", field: "number")
        }
        let keys = serverKeys.isEmpty ? [ids.serverKey()] : serverKeys
        let project = Project(id: id, number: number, serverKeys: keys, createdAt: now)
        let index = Int32(projects.count)
        projects.append(ProjectState(project: project))
        projectIndexById[id] = index
        projectIndexByNumber[number] = index
        log(.projectCreated, detail: id)
        return project
    }

    private mutating func freeProjectNumber() -> String {
        while true {
            let candidate = String(100_000_000_000 + ids.random.next() % 900_000_000_000)
            if projectIndexByNumber[candidate] == nil { return candidate }
        }
    }

    func projectIndex(id: String) throws(FCMError) -> Int32 {
        guard let index = projectIndexById[id] else { throw FCMError(.notFound, "No project '\(id)'", field: "project") }
        return index
    }

    /// Finds a project by id or by number, as v1 URLs allow either
    /// (https://firebase.google.com/docs/reference/fcm/rest/v1/projects.messages/send).
    func projectIndex(idOrNumber: String) throws(FCMError) -> Int32 {
        if let index = projectIndexById[idOrNumber] ?? projectIndexByNumber[idOrNumber] { return index }
        throw FCMError(.notFound, "No project '\(idOrNumber)'", field: "project")
    }

    func projectState(_ index: Int32) throws(FCMError) -> ProjectState {
        guard let state = projects[Int(index)] else { throw FCMError(.notFound, "No such project", field: "project") }
        return state
    }

    /// Mutates a project's state in place. The state is moved out of the array while `body` runs,
    /// so it is uniquely referenced and growing its collections never copies them.
    mutating func modifyProject<R>(_ index: Int32, _ body: (inout ProjectState) throws(FCMError) -> R) throws(FCMError) -> R {
        guard var state = projects[Int(index)] else { throw FCMError(.notFound, "No such project", field: "project") }
        projects[Int(index)] = nil
        defer { projects[Int(index)] = state }
        return try body(&state)
    }

    /// Deletes a project and everything in it.
    mutating func deleteProject(id: String) throws(FCMError) {
        let index = try projectIndex(id: id)
        clearProject(index)
        guard let state = projects[Int(index)] else { return }
        projectIndexById[id] = nil
        projectIndexByNumber[state.project.number] = nil
        projects[Int(index)] = nil
        log(.projectDeleted, detail: id)
    }

    /// Removes a project's devices, topics and groups, keeping the project itself.
    mutating func clearProject(_ index: Int32) {
        guard let state = projects[Int(index)] else { return }
        for device in state.devices { removeDevice(device, logged: false) }
        projects[Int(index)] = ProjectState(project: state.project)
    }
}
