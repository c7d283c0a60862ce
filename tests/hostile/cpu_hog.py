import signal
import threading
import time


def burn():
    while True:
        pass


class CpuHog:
    """Answers each decision in 50 ms, and burns CPU in a thread meanwhile, ignoring
    SIGXCPU: only arena's own count of its CPU time stops it."""

    name, version = "cpu-hog", "1"

    def __init__(self):
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        threading.Thread(target=burn, daemon=True).start()

    def act(self, observation):
        time.sleep(0.05)
        return observation.legal_actions[0]
