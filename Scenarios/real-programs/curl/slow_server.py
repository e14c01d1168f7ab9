"""A local HTTP server that sends 1 MB in five parts 0.3 s apart, so that a
client waits for it in poll (as an event loop does) before it writes.
Prints its port on stdout once it listens; serves until killed."""
import http.server
import sys
import time


class SlowHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        part = b"x" * 200000
        self.send_response(200)
        self.send_header("Content-Length", str(5 * len(part)))
        self.end_headers()
        for _ in range(5):
            time.sleep(0.3)
            self.wfile.write(part)
            self.wfile.flush()

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), SlowHandler)
print(server.server_address[1], flush=True)
server.serve_forever()
