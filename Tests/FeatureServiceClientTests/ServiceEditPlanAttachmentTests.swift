import FeatureModel
import Testing

@testable import FeatureServiceClient

/// The `attachments` member of a service-level applyEdits, planned without I/O.
@Suite struct ServiceEditPlanAttachmentTests {
    static let park = "{8C759A95-6118-444C-93B8-932EFAB06DF8}"

    static func attachment(_ globalId: String, tableId: Int = 0, name: String) -> PendingAttachment {
        PendingAttachment(
            globalId: globalId, tableId: tableId, parentGlobalId: park, file: "/tmp/" + name, name: name, contentType: "image/jpeg",
            options: AttachmentUploadOptions())
    }

    @Test("attachments go in their layer's entry as adds with data or uploadId, and results map back by position")
    func wireAndResults() throws {
        let add = PendingEditSnapshot(
            key: "0/\(Self.park)", edit: PendingEdit(kind: .add, tableId: 0, feature: Feature(attributes: ["GlobalID": .string(Self.park)])))
        var plan = ServiceEditPlan([add])
        let inline = Self.attachment("{11111111-1111-1111-1111-111111111111}", name: "a.jpg")
        let uploaded = Self.attachment("{22222222-2222-2222-2222-222222222222}", name: "b.jpg")
        let elsewhere = Self.attachment("{33333333-3333-3333-3333-333333333333}", tableId: 2, name: "c.jpg")
        plan.add(attachments: [
            PreparedAttachment(attachment: inline, content: .data("AQID")), PreparedAttachment(attachment: uploaded, content: .uploadId("i42")),
            PreparedAttachment(attachment: elsewhere, content: .data("")),
        ])
        #expect(plan.layers.map(\.tableId) == [0, 2])

        let edits = try JSONReader.parse(plan.editsJSON)
        guard case .array(let entries) = edits, case .object(let first) = entries.first, case .object(let attachments)? = first["attachments"],
            case .array(let adds)? = attachments["adds"], case .object(let a)? = adds.first, case .object(let b)? = adds.last
        else {
            Issue.record("unexpected edits: \(plan.editsJSON)")
            return
        }
        #expect(adds.count == 2)
        #expect(a["globalId"]?.stringValue == inline.globalId && a["parentGlobalId"]?.stringValue == Self.park)
        #expect(a["data"]?.stringValue == "AQID" && a["uploadId"] == nil && a["name"]?.stringValue == "a.jpg")
        #expect(b["uploadId"]?.stringValue == "i42" && b["data"] == nil && b["contentType"]?.stringValue == "image/jpeg")

        let answer = [
            ApplyEditsResult(
                id: 0, addResults: [EditResult(objectId: 13, success: true)],
                attachments: AttachmentEditResults(addResults: [
                    EditResult(objectId: 7, success: true),
                    EditResult(objectId: nil, success: false, error: EditError(code: 1000, description: "too big")),
                ]))
        ]
        let results = plan.attachmentResults(of: answer)
        #expect(results[inline.globalId]?.status == .applied && results[inline.globalId]?.attachmentId == 7)
        #expect(results[uploaded.globalId]?.status == .failed && results[uploaded.globalId]?.error?.code == 1000)
        #expect(results[elsewhere.globalId]?.status == .outcomeUnknown)
    }
}
