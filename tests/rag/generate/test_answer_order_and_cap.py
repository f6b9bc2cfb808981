"""The answer's order and length: a sentence that refers back ("It is …") stands right after the
one it refers to, and the character cap holds for the answer as shown, citations included."""

from __future__ import annotations

from test_fragments import Texts, ctx, whole

from rag.generate.extractive import extractive_answer

SNAPSHOTS = ("Storage\n\nDisks are listed in the panel. Snapshots of the volume are stored read-only. "
             "Quotas limit the volume space of each user. It is enforced by the kernel at write "
             "time. Other text follows here.")


def test_a_sentence_that_refers_back_follows_the_one_it_refers_to() -> None:
    query = "How do quotas limit snapshots on the volume?"
    answer = extractive_answer(query, ctx(query, whole(SNAPSHOTS, "d")), documents=Texts(d=SNAPSHOTS))
    quotes = [q.text for q in answer.quotes]
    assert quotes[0].startswith("Quotas limit") and quotes[1].startswith("It is enforced")


CACHE = ("Cache\n\nThe cache size limit is set in the config file under the key cache_max. "
         "The cache limit value defaults to 512 megabytes on a desktop machine. "
         "When the limit size is reached the oldest entries are evicted from the cache first. ")


def test_the_character_cap_counts_the_citations_too() -> None:
    query = "What is the cache size limit value and what happens when reached?"
    for cap in (150, 200, 260):
        answer = extractive_answer(query, ctx(query, whole(CACHE, "d")), max_chars=cap,
                                   documents=Texts(d=CACHE))
        assert len(answer.quotes) == 1 or len(answer.text) <= cap

