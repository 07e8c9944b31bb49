"""The decision site (`cairn export html OUT/`), in parts named for what they do:

- `model`: one pass over the log gathers what every page needs of each entity;
- `timeline`: the front page's decisions, newest first, paged;
- `index_page`, `entity_list`, `tree`, `entity_page`, `chart`, `markup`: the pages
  (the list and the tree paged) and what they share;
- `search_data`: the bounded data the browser searches, ranked as `cairn search` ranks,
  and `search_files`: the same data in pieces a page loads as a search needs them;
- `build`: every file of the site, streamed; `write`: onto disk whole or not at all.
"""

from cairn.site.build import SiteSummary, export_site, iter_site
from cairn.site.index_page import FILTERS
from cairn.site.model import entity_page_name
from cairn.site.search_data import SearchLimits, coverage_note, search_index
from cairn.site.write import SiteError, write_site

__all__ = [
    "FILTERS",
    "SearchLimits",
    "SiteError",
    "SiteSummary",
    "coverage_note",
    "entity_page_name",
    "export_site",
    "iter_site",
    "search_index",
    "write_site",
]
