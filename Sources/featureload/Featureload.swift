import ArgumentParser

/// The `featureload` command: load tests, bulk edits and a local ArcGIS-compatible feature service.
@main
struct Featureload: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "featureload",
        abstract: "Load-test and edit ArcGIS feature services; serve a local one over SQLite.",
        discussion: """
            Scenario files (YAML) describe load: which operation, how many virtual users, how many iterations, \
            batch sizes, and the gates a run must pass. Run one against the embedded local service (`target: local`) \
            or a live …/FeatureServer URL. Reports go to Reports/<name>-<time>/ as report.json and report.md.

            Exit codes: 0 the run passed every gate; 1 a gate failed (failed edits, verification, speed-up ratio); \
            2 the scenario file is invalid or the run could not start.

            `featureload apply FILE --to local|URL --layer ID` loads a file of edits (GeoJSON, Esri JSON, CSV, \
            GeoPackage) in parallel batches, exactly once, resumable with --resume JOURNAL.

            Examples:
              featureload run Scenarios/quickstart.yaml
              featureload apply parks.geojson --to local --layer 0 --verify
              featureload validate Scenarios/*.yaml
              featureload serve --port 8080 --data parks.sqlite
            """,
        version: version,
        subcommands: [
            RunCommand.self, ApplyCommand.self, VerifyCommand.self, ValidateCommand.self, ReportCommand.self, CompareCommand.self, ServeCommand.self,
            SchemaCommand.self,
        ]
    )
}
