"""A slow link to an agent, for tests: runs COMMAND... (`tvis agent --stdio
...`) and relays its stdin at once and its stdout DELAY seconds late
(argv[1]), as if every answer crossed a link with that latency: each piece
the agent writes is released DELAY seconds after it was read, in order, so
bytes are late by DELAY, not slowed down. tests/e2e/test_live.sh names a
script that execs this as tvis-view's --remote-tvis."""
import os
import queue
import subprocess
import sys
import threading
import time


def main():
    delay = float(sys.argv[1])
    agent = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    late = queue.Queue()

    def to_agent():  # the client's requests, at once; its end of stream closes the agent's stdin
        try:
            while True:
                data = os.read(0, 1 << 16)
                if not data:
                    break
                agent.stdin.write(data)
        except OSError:
            pass
        finally:
            try:
                agent.stdin.close()
            except OSError:
                pass

    def from_agent():  # the agent's answers, stamped with the time they may leave
        while True:
            data = os.read(agent.stdout.fileno(), 1 << 16)
            late.put((time.monotonic() + delay, data))
            if not data:
                return

    threading.Thread(target=to_agent, daemon=True).start()
    threading.Thread(target=from_agent, daemon=True).start()
    while True:
        release, data = late.get()
        wait = release - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        if not data:
            break
        try:
            while data:
                data = data[os.write(1, data):]
        except OSError:
            break
    sys.exit(agent.wait())


if __name__ == "__main__":
    main()
