"""Outline learning (SurveyForge §3.1), in one place, as four steps:

1. **Learn roles** from the related human outlines (``roles.learn_roles``): which parts such surveys
   have (foundations, methods, benchmarks and evaluation, applications) and in which order, never
   their wording.
2. **Instantiate** each role with this topic's own concepts (``floor.build_outline_floor``): method
   families are clusters of the on-topic papers named by phrases their titles share
   (``names``), role sections are named from the role and the topic, application parts by domain.
3. **Place papers**: the same call puts every paper under the heading it fits best (the cluster or
   role it was grouped into); a subsection's reading starts from the papers placed on it.
4. **Validate headings** (``headings.validate_heading``): every heading, from the floor or from a
   model, is a unique concept phrase, not a copied title, not cut off, not generic.

Modules: ``floor`` (the whole taxonomy: role sections, then method sections), ``asked`` (the parts
a topic lists, "jailbreak attacks and defenses", as its first method sections), ``methods`` (method
families and what fills the section slots they leave: promoting a large subsection to a section,
splitting a large subsection into its phrases), ``parts`` (placing papers under subsection phrases,
subsections named by kinds of work), ``taxonomy`` and ``concepts`` (families and phrases).
``vectors`` gives the floor its paper vectors (the corpus encoder, or TF-IDF without one). The
graph node that runs these steps and lets a capable model's headings replace the floor is
agents/planner.py.
"""

from .floor import build_outline_floor
from .headings import validate_heading
from .roles import learn_roles

__all__ = ["build_outline_floor", "learn_roles", "validate_heading"]
