import Faultline
import Foundation
import Testing

/// The Swift ELF note reader agrees with the build-ids the C agent read
/// from memory, for every image of a real crash.
@Suite struct ELFBuildIDTests {
    @Test func matchesTheAgentForEveryLoadedImage() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = try ReportStore.load(path: try Victims.crashC("null-deref", in: dir).path)
        let files = (report.images ?? []).filter { !$0.path.hasPrefix("[") && $0.buildId != nil }
        #expect(files.count >= 3)
        for image in files {
            #expect(ELFBuildID.read(path: image.path) == image.buildId, "\(image.path)")
        }
    }

    @Test func nonELFAndMissingFilesHaveNone() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("#!/bin/sh\necho hi\n".utf8).write(to: URL(fileURLWithPath: "\(dir)/script"))
        try Data([0x7f, 0x45, 0x4c, 0x46, 2, 1]).write(to: URL(fileURLWithPath: "\(dir)/stub"))
        #expect(ELFBuildID.read(path: "\(dir)/script") == nil)
        #expect(ELFBuildID.read(path: "\(dir)/stub") == nil)
        #expect(ELFBuildID.read(path: "\(dir)/missing") == nil)
        #expect(ELFBuildID.read(path: dir) == nil)
    }
}
