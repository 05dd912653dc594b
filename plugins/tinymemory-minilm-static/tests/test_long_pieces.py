"""A long stored piece is judged by its best window of sentences, like the background's
passages: the one sentence answering a reworded question is found although the piece as a
whole (its prose beside a long table) is farther from the question than the background's
passages are; an unrelated long piece stays refused."""

from __future__ import annotations

from pathlib import Path

import tinymemory as tm

RATES = [("Car", "0.30"), ("Motorbike", "0.20"), ("Bicycle", "0.10"), ("Van", "0.40"),
         ("Scooter", "0.15"), ("Truck", "0.55"), ("Electric car", "0.25"), ("Minibus", "0.45"),
         ("Moped", "0.12"), ("Camper", "0.50")]  # fmt: skip
EXPENSES = (
    "# Expense rules\n\n"
    "Meals with customers are refunded up to 60 EUR per guest.\n\n"
    "Receipts must be uploaded within 30 days of the purchase.\n\n"
    "Taxi rides are covered only after 22:00 or with heavy luggage.\n\n"
    "# Mileage\n\n| Vehicle | Rate per km |\n| --- | --- |\n"
    + "\n".join(f"| {vehicle} | {rate} EUR |" for vehicle, rate in RATES)
)
GARDEN = " ".join([
    "Tomatoes need full sun and deep watering twice a week.",
    "Prune the roses in late winter, just above an outward bud.",
    "Compost turns to soil faster when it is turned every month.",
    "Slugs can be kept off lettuce with copper tape around the beds.",
    "Garlic is planted in autumn and harvested in early summer.",
    "Mulch keeps the roots cool and holds moisture in dry spells.",
    "Bees visit lavender more than any other plant in the border.",
    "Seedlings are hardened off outside for a week before planting.",
])  # fmt: skip
#: Shares no content word with the sentence answering it.
REWORDED = "What can staff claim when they eat with clients?"
NOTHING = "Nothing stored answers this question."


def recall(path: Path, bodies: list[str], question: str) -> str:
    settings = tm.EngineSettings(options={"path": str(path)})
    with tm.build_engine("sqlite", settings, scrub=False) as engine:
        engine.store_many(tm.Document(body=body) for body in bodies)
        return engine.recall(tm.RecallRequest(question=question)).answer


def test_the_answering_sentence_of_a_long_piece_is_found(tmp_path: Path) -> None:
    answer = recall(tmp_path / "memory.db", [EXPENSES, GARDEN], REWORDED)
    assert answer.startswith("Meals with customers are refunded up to 60 EUR per guest."), answer


def test_an_unrelated_long_piece_stays_refused(tmp_path: Path) -> None:
    assert recall(tmp_path / "memory.db", [GARDEN], REWORDED) == NOTHING
    football = "Who won the football match on Saturday?"
    assert recall(tmp_path / "other.db", [EXPENSES, GARDEN], football) == NOTHING
