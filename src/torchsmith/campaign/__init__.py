"""Campaigns: the fuzz loop and what it keeps.

* :mod:`~torchsmith.campaign.loop`: :class:`Campaign`, generate, check, localize, dedup, store;
* :mod:`~torchsmith.campaign.config`: :class:`CampaignConfig`, the new/resume rules and the
  CLI's flag-to-field map;
* :mod:`~torchsmith.campaign.store`: ``campaign.db`` (all SQL, as named queries);
* :mod:`~torchsmith.campaign.writer`: the one thread that writes it;
* :mod:`~torchsmith.campaign.repair`: a damaged database, salvaged;
* :mod:`~torchsmith.campaign.pack`: several programs checked in one compile;
* :mod:`~torchsmith.campaign.summary`: what ``status``, ``--json``, the page and ``regress``
  read, without importing the loop.
"""
