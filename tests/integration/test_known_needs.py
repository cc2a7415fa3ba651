"""Known entries that need opt-in passes (``torchsmith.known``'s ``needs``) can only be matched
when a campaign's rows keep the settings their program declared: a real campaign records them,
and its summary labels a needs-entry's cause known only through them."""

from __future__ import annotations

from torchsmith.campaign.config import CampaignConfig
from torchsmith.campaign.loop import Campaign
from torchsmith.campaign.store import Store
from torchsmith.known import passes_on
from torchsmith.options import CheckOptions

PASS = "move_reshape_out_of_split_stack_pass"


def test_rows_keep_the_opt_in_passes_their_program_declared(tmp_path):
    cfg = CampaignConfig(
        out=tmp_path / "c", count=2, generator="rewrites",
        gen_options={"patterns": "move_reshape_out_of_split_stack"},
        options=CheckOptions(backend="aot_eager", timeout=120, localize=False),
    )  # fmt: skip
    Campaign(cfg).run()
    with Store(tmp_path / "c", readonly=True) as s:
        rows = s.rows()
        assert len(rows) == 2
        for r in rows:
            opts = s.options_of(r["options_id"])
            assert opts["backend"] == "aot_eager"  # the campaign's own options are kept too
            assert PASS in passes_on(opts["config"]), opts
