"""Issue 29, item 9: no other site may frame the lab. Streamlit sends no X-Frame-Options or CSP
frame-ancestors, so the hosting guide's proxy block adds both (and says why)."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_hosting_guides_proxy_block_forbids_framing():
    guide = (ROOT / "docs" / "hosting.md").read_text()
    block = guide[guide.index("```nginx"):]
    block = block[:block.index("```", 3)]
    assert 'add_header X-Frame-Options "DENY" always;' in block
    assert "add_header Content-Security-Policy \"frame-ancestors 'none'\" always;" in block
