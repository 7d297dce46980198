"""The sim's Chrome renders a page the device wrote with the host's Chromium, whose profile folder is
on the host's disk, outside the device's space: a page can neither download files there nor keep
more than PAGE_STORAGE in it (IndexedDB, Cache, OPFS), where one page wrote 600 MB."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mgfarm.sim.system.chromium import PAGE_STORAGE, Browser, binary
from mgfarm.sim.system.space import measure

pytestmark = pytest.mark.skipif(
    binary() is None, reason="no chromium on this host (apt-get install chromium)"
)

RANDOM = (
    "const a = new Uint8Array(N);"
    " for (let k = 0; k < N; k += 65536) crypto.getRandomValues(a.subarray(k, k + 65536));"
)
FILL_DB = """<html><body><p id=s>start</p><script>
const req = indexedDB.open('fill', 1);
req.onupgradeneeded = e => e.target.result.createObjectStore('s');
req.onsuccess = e => { const db = e.target.result; let n = 0;
  const put = () => { const tx = db.transaction('s', 'readwrite'); const N = 8 * 1024 * 1024; RANDOM
    tx.objectStore('s').put(a, n++);
    tx.oncomplete = () => { if (n < 32) put(); else document.getElementById('s').innerText = 'stored'; };
    tx.onabort = () => { document.getElementById('s').innerText = 'refused ' + tx.error.name; }; };
  put(); };
</script></body></html>""".replace("RANDOM", RANDOM)
DOWNLOAD = """<html><body><p id=s>start</p><script>
const N = 4 * 1024 * 1024; RANDOM
const link = document.createElement('a');
link.href = URL.createObjectURL(new Blob([a])); link.download = 'big.bin';
document.body.appendChild(link); link.click(); document.getElementById('s').innerText = 'clicked';
</script></body></html>""".replace("RANDOM", RANDOM)


@pytest.fixture
def browser() -> Iterator[Browser]:
    exe = binary()
    assert exe is not None
    opened = Browser(exe, 400, 800, 1.0)
    yield opened
    opened.close()


def status_after(browser: Browser, done: tuple[str, ...], seconds: float = 20.0) -> str:
    deadline = time.monotonic() + seconds
    text = ""
    while time.monotonic() < deadline:
        text = str(browser.evaluate("document.getElementById('s').innerText"))
        if text.startswith(done):
            return text
        time.sleep(0.2)
    return text


def test_a_page_cannot_store_more_than_its_quota_on_the_host(browser: Browser, tmp_path: Path) -> None:
    page = tmp_path / "fill.html"
    page.write_text(FILL_DB)
    browser.open(page)
    assert status_after(browser, ("refused",)) == "refused QuotaExceededError"
    assert measure(browser.folder)[0] < PAGE_STORAGE + 32 * 1024 * 1024  # the quota and a fresh profile


def test_a_page_cannot_download_to_the_host(browser: Browser, tmp_path: Path) -> None:
    page = tmp_path / "download.html"
    page.write_text(DOWNLOAD)
    browser.open(page)
    assert status_after(browser, ("clicked",)) == "clicked"
    downloads = browser.folder / "Downloads"  # $HOME/Downloads, where Chromium saves one
    deadline = time.monotonic() + 3.0
    while time.monotonic() < deadline and not (downloads.exists() and any(downloads.iterdir())):
        time.sleep(0.2)
    assert not (downloads.exists() and any(downloads.iterdir()))


HOLD = """<html><body><p id=s>start</p><script>
const kept = [];
const say = (text) => { document.getElementById('s').innerText = text; };
try { while (kept.length < 32) kept.push(new ArrayBuffer(256 * 1024 * 1024)); say('held 8 GB'); }
catch (e) { say('refused ' + e.name); }
</script></body></html>"""


def test_a_page_cannot_take_the_hosts_memory_and_the_browser_goes_on(
    browser: Browser, tmp_path: Path
) -> None:
    page = tmp_path / "hold.html"
    page.write_text(HOLD)
    browser.open(page)
    assert status_after(browser, ("refused", "held")) == "refused RangeError"  # at BROWSER_MEMORY
    assert browser.evaluate("1 + 1") == 2


def test_the_sims_reading_of_a_page_is_out_of_the_pages_reach(browser: Browser, tmp_path: Path) -> None:
    """The scan and typing run in an isolated world (the page's DOM, their own builtins): a page whose
    script replaced `Array.prototype.push` put a number where the scan expects a node, and reading
    it raised TypeError out of the browser, stopping Chrome."""
    page = tmp_path / "odd.html"
    page.write_text(
        "<html><body><button>Hi</button><input id=f><p id=s></p><script>const real = Array.prototype.push;"
        " Array.prototype.push = function (x) { return real.call(this, 42); };"
        " document.getElementById('f').addEventListener('input', e => {"
        " document.getElementById('s').innerText = 'typed ' + e.target.value; });</script></body></html>"
    )
    browser.open(page)
    _, nodes = browser.scan()
    assert [(n.kind, n.text) for n in nodes if n.kind != "text"] == [("button", "Hi"), ("input", "")]
    field = next(n for n in nodes if n.kind == "input")
    browser.set_value(field.index, "abc")  # the page's own listener still hears it
    assert ("text", "typed abc") in [(n.kind, n.text) for n in browser.scan()[1]]
