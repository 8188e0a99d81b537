"""A finished run's comparison, stored with a fingerprint of what else it read.

A done run's scores never change, but its presentation also reads what can: the providers'
names, each bid's acknowledgement of the fixture and terms, the agreed handoff terms (the fact
conflicts) and, anonymised, the bids' letters. Every read takes those afresh (a constant number
of queries) and hashes them with the run; a stored presentation under the same hash is shown as
it is, any other is built again and stored over.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from acceptance.selectors.fixtures import acknowledgements_for_bids
from bids.models import CapacityRequest
from evaluation.anonymise import anonymous_labels
from evaluation.models import BidScore, ComparisonPresentation, ScoringRun
from evaluation.services import LiveInputs
from questionnaire.selectors import agreed_terms

#: Bump when what a presentation holds, or how it is worded or printed, changes: presentations
#: stored by older code no longer match and are built again on their next read.
PRESENTATION_VERSION = 6


@dataclass(frozen=True)
class Inputs:
    """What a run's presentation reads besides the run and its frozen revisions."""

    names: dict[int, str]  # provider name by bid id
    acks: dict[int, tuple[str, int]]  # (acknowledgement, exceptions) by bid id
    agreed: dict[str, Any] | None  # the request's handoff terms, for the fact conflicts
    labels: dict[int, str]  # anonymised: "Bid A"… by bid id; empty otherwise

    def fingerprint(self, run: ScoringRun, anonymised: bool) -> str:
        finished = run.finished_at.isoformat() if run.finished_at else ""
        body = [
            PRESENTATION_VERSION,
            run.pk,
            finished,
            anonymised,
            sorted(self.names.items()),
            sorted((bid, list(ack)) for bid, ack in self.acks.items()),
            self.agreed,
            sorted(self.labels.items()),
        ]
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode()).hexdigest()


def presentation_inputs(
    *, capacity_request: CapacityRequest, run: ScoringRun, anonymise: bool, live: LiveInputs | None
) -> Inputs:
    """`live`: what the live inputs' fingerprint read, when `run` is theirs (then it names the
    same bids and the same terms). No query, one anonymised, whatever the number of bids;
    three more for an earlier run."""
    if live is not None:
        names, acks, agreed = live.names, live.context.acks, live.context.agreed
    else:
        names = dict(
            BidScore.objects.filter(run=run).values_list(
                "revision__bid_id", "revision__bid__provider__name"
            )
        )
        acks = acknowledgements_for_bids(list(names))
        agreed = agreed_terms(capacity_request=capacity_request)
    return Inputs(
        names=names,
        acks=acks,
        agreed=agreed,
        labels=anonymous_labels(capacity_request=capacity_request) if anonymise else {},
    )


def stored_presentation(
    *, run: ScoringRun, anonymised: bool, fingerprint: str, with_html: bool, with_json: bool
) -> ComparisonPresentation | None:
    """The stored presentation if it was built from these inputs. The page reads the printed
    matrix, the API the printed JSON, the exports the cells: each leaves the others unread (a
    deferred one loads on use)."""
    unread = {"groups", "matrix_html", "groups_json"}
    unread -= {"matrix_html"} if with_html else {"groups_json"} if with_json else {"groups"}
    found = ComparisonPresentation.objects.filter(
        run=run, anonymised=anonymised, fingerprint=fingerprint
    ).defer(*unread)
    return found.first()


def presentation_store(
    *,
    run: ScoringRun,
    anonymised: bool,
    fingerprint: str,
    columns: list[dict[str, Any]],
    groups: list[dict[str, Any]],
    summary: dict[str, Any],
    matrix_html: str,
    groups_json: str,
) -> ComparisonPresentation:
    """Store over whatever this run and labelling held. One statement, so two readers building
    the same presentation at once both succeed (the last one's stays, built from the same
    inputs or newer ones)."""
    presentation = ComparisonPresentation(
        run=run,
        anonymised=anonymised,
        fingerprint=fingerprint,
        columns=columns,
        groups=groups,
        summary=summary,
        matrix_html=matrix_html,
        groups_json=groups_json,
    )
    ComparisonPresentation.objects.bulk_create(
        [presentation],
        update_conflicts=True,
        unique_fields=["run", "anonymised"],
        update_fields=[
            "fingerprint",
            "columns",
            "groups",
            "summary",
            "matrix_html",
            "groups_json",
            "built_at",
        ],
    )
    # Only the request's latest finished run is ever shown: an earlier one's is dead weight.
    ComparisonPresentation.objects.filter(run__request_id=run.request_id).exclude(
        run_id=run.pk
    ).delete()
    return presentation
