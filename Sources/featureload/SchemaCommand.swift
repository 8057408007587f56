import ArgumentParser
import LoadRunner

/// `featureload schema`: prints the JSON Schema of scenario files, for editors and CI checks.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema of scenario files (draft 2020-12).",
        discussion: """
            Editors use it to check and complete scenario files as you type. With the YAML language server (VS Code's \
            YAML extension and others), save it and name it in the file's first line:

              featureload schema > scenario.schema.json
              # yaml-language-server: $schema=scenario.schema.json

            The schema catches unknown keys, wrong types and values out of range. `featureload validate` remains the \
            full check: it also resolves names (compare, startAfter, threshold tags) and checks the plan against the \
            service.
            """
    )

    func run() throws {
        print(ScenarioSchema.json)
    }
}
