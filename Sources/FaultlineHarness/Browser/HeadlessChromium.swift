import Faultline
import Foundation

/// Debian's `chromium` run headless on a local page: the DOM it built
/// (`--dump-dom`), a screenshot, and how long a page takes to load and lay
/// out. Each call is a fresh browser with a profile of its own, so calls
/// may run at once. For the HTML report's tests and its benchmark.
public struct HeadlessChromium: Sendable {
    /// The browser executable.
    public let path: String

    /// The installed browser (`chromium`, else `chromium-browser`,
    /// `google-chrome` on `PATH`), nil when there is none.
    public static func installed() -> HeadlessChromium? {
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            if let p = ToolLocator.find(name) { return HeadlessChromium(path: p) }
        }
        return nil
    }

    /// Why there is no browser, for a SKIP: nil when there is one.
    public static var missing: String? {
        installed() == nil ? "chromium is not installed (FAULTLINE_SETUP_BROWSER=1 scripts/setup installs Debian's chromium)" : nil
    }

    /// A browser failed or timed out.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The serialised DOM of `page` after it loaded.
    public func dumpDOM(_ page: String, extra: [String] = []) throws -> String {
        try run(["--dump-dom"] + extra + [Self.url(page)]).stdout
    }

    /// A PNG of the top `width`×`height` pixels of `page` into `png`.
    public func screenshot(_ page: String, to png: String, width: Int = 1200, height: Int = 1000) throws {
        try? FileManager.default.removeItem(atPath: png)
        let done = try run(["--screenshot=\(png)", "--window-size=\(width),\(height)", Self.url(page)])
        guard FileManager.default.fileExists(atPath: png) else {
            throw Failure(description: "chromium wrote no screenshot of \(page): \(done.stderr.suffix(400))")
        }
    }

    /// Milliseconds from asking for `page` to its load event, and to its
    /// whole layout (the document's height read after the load), measured
    /// inside the browser by a small page that loads `page` in a frame.
    /// The page itself has no script.
    public func loadTime(_ page: String) throws -> (load: Double, layout: Double) {
        let dir = (page as NSString).deletingLastPathComponent
        let harness = "\(dir)/.faultline-load-\(getpid()).html"
        defer { try? FileManager.default.removeItem(atPath: harness) }
        let src = Self.url(page).replacingOccurrences(of: "\"", with: "%22")
        let html = """
            <!DOCTYPE html><html><body><pre id="t">pending</pre><script>
            const f = document.createElement("iframe");
            f.style.width = "1200px"; f.style.height = "800px";
            const t0 = performance.now();
            f.onload = () => {
              const t1 = performance.now();
              const h = f.contentDocument ? f.contentDocument.documentElement.scrollHeight : -1;
              const t2 = performance.now();
              document.getElementById("t").textContent = "load=" + (t1 - t0) + " layout=" + (t2 - t0) + " height=" + h;
            };
            f.src = "\(src)";
            document.body.appendChild(f);
            </script></body></html>
            """
        try html.write(toFile: harness, atomically: true, encoding: .utf8)
        let dom = try dumpDOM(harness, extra: ["--allow-file-access-from-files"])
        guard let range = dom.range(of: #"load=[0-9.]+ layout=[0-9.]+ height=-?[0-9]+"#, options: .regularExpression) else {
            throw Failure(description: "the load-time page did not finish: \(dom.prefix(300))")
        }
        var values: [String: Double] = [:]
        for part in dom[range].split(separator: " ") {
            let kv = part.split(separator: "=")
            if kv.count == 2 { values[String(kv[0])] = Double(kv[1]) }
        }
        guard (values["height"] ?? -1) > 0 else { throw Failure(description: "the page could not be read in its frame: \(dom[range])") }
        return (values["load"] ?? 0, values["layout"] ?? 0)
    }

    /// `file://` URL of a path.
    static func url(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: absolute).absoluteString
    }

    /// Runs the browser headless with `arguments`, killed after 120 s.
    private func run(_ arguments: [String]) throws -> (stdout: String, stderr: String) {
        let profile = NSTemporaryDirectory() + "faultline-chromium-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        // --no-sandbox: the sandbox cannot start as root, where tests run.
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                             "--user-data-dir=\(profile)"] + arguments
        // Files, not pipes: the browser's helper processes can outlive a
        // killed browser and would hold a pipe open.
        let outPath = profile + ".out", errPath = profile + ".err"
        defer { try? FileManager.default.removeItem(atPath: outPath); try? FileManager.default.removeItem(atPath: errPath) }
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath)), err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let timer = DispatchSource.makeTimerSource()
        timer.schedule(deadline: .now() + 120)
        timer.setEventHandler { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        timer.resume()
        process.waitUntilExit()
        timer.cancel()
        try? out.close()
        try? err.close()
        let data = FileManager.default.contents(atPath: outPath) ?? Data()
        let stderr = String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw Failure(description: "chromium \(arguments.joined(separator: " ")) ended with status \(process.terminationStatus): \(stderr.suffix(400))")
        }
        return (String(decoding: data, as: UTF8.self), stderr)
    }
}

