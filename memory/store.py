"""M and M_i as SurveyForge keeps them: the outline-stage literature, reused while writing.

In the graph state the memory is plain data (ids and Paper dumps) so it can be checkpointed;
``PaperMemory`` is the read-only view nodes use to ask for ids and titles.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..models import Paper, ScoredPaper


def paper_dump(paper: Paper) -> dict:
    return paper.model_dump(mode="json", exclude_none=True)


def paper_from_dump(data: dict) -> Paper:
    return Paper.model_validate(data)


def remember_papers(hits: list[ScoredPaper]) -> tuple[list[str], dict[str, dict]]:
    """Ids in ranked order (deduplicated) and the Paper dumps to merge into state['papers']."""
    ids: list[str] = []
    dumps: dict[str, dict] = {}
    for hit in hits:
        pid = hit.paper.paper_id
        if pid in dumps:
            continue
        ids.append(pid)
        dumps[pid] = paper_dump(hit.paper)
    return ids, dumps


@dataclass
class PaperMemory:
    """The overall memory M and the section memories M_i over one shared paper table."""

    papers: dict[str, dict] = field(default_factory=dict)
    overall: list[str] = field(default_factory=list)
    sections: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def from_state(cls, state: dict) -> "PaperMemory":
        return cls(
            papers=state.get("papers") or {},
            overall=state.get("memory") or [],
            sections=state.get("section_memory") or {},
        )

    def titles(self, ids: list[str], limit: int | None = None) -> list[str]:
        chosen = ids if limit is None else ids[:limit]
        return [self.papers[i]["title"] for i in chosen if i in self.papers]

    def section_titles(self, section_id: str, limit: int | None = None) -> list[str]:
        return self.titles(self.sections.get(section_id, []), limit)

    def get(self, paper_id: str) -> Paper | None:
        data = self.papers.get(paper_id)
        return paper_from_dump(data) if data else None
