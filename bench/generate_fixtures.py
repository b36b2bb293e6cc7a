"""Write deterministic stand-ins for the shared benchmark documents.

    python bench/generate_fixtures.py [--out DIR]

bench/compare.py falls back to these when the real documents (twitter,
github, citm_catalog, canada from the nativejson-benchmark / orjson corpora)
are not available.  They mimic the shape and flavour of the originals (nesting,
key counts, string/number mix, unicode) at a smaller size (< 300 KB each), so
timings are indicative but not comparable with runs on the real files.

Only the stdlib is used; every document has its own seeded RNG so the output
is byte-for-byte stable and each document can be changed independently.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "fixtures" / "generated"

# Text fragments mixing ASCII, accented Latin, CJK and astral-plane emoji so
# that decoders exercise all UTF-8 sequence lengths and encoders the escapes.
WORDS = [
    "hello",
    "world",
    "json",
    "fast",
    "rust",
    "python",
    "codec",
    "today",
    "café",
    "naïve",
    "über",
    "señor",
    "façade",
    "Ærø",
    "Москва",
    "Ελλάδα",
    "名前",
    "第一印象",
    "好きなところ",
    "ありがとう",
    "東京",
    "一言",
    "今日は",
    "😋",
    "✨",
    "😊",
    "❤️",
    "💖",
    "🎉",
    "👍",
]
PUNCT = ["", "", "", "!", "?", "…", "。", "\n", "\t", ' "quoted" ', " \\ "]


def sentence(rng: random.Random, lo: int, hi: int) -> str:
    parts = []
    for _ in range(rng.randint(lo, hi)):
        parts.append(rng.choice(WORDS) + rng.choice(PUNCT))
    return " ".join(parts)


def hexstr(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def handle(rng: random.Random) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(rng.randint(4, 12)))


def twitter_date(rng: random.Random) -> str:
    day = rng.choice(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])
    mon = rng.choice(["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"])
    clock = f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
    return f"{day} {mon} {rng.randint(1, 28):02d} {clock} +0000 {rng.randint(2008, 2014)}"


def iso_date(rng: random.Random) -> str:
    return (
        f"2013-01-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"
    )


# --- twitter: search results, statuses with nested users and entities -------


def twitter_user(rng: random.Random) -> dict:
    uid = rng.randint(10_000, 3_000_000_000)
    name = handle(rng)
    color = lambda: hexstr(rng, 6).upper()  # noqa: E731
    return {
        "id": uid,
        "id_str": str(uid),
        "name": sentence(rng, 1, 2),
        "screen_name": name,
        "location": rng.choice(["", "東京", "Paris, France", "São Paulo"]),
        "description": sentence(rng, 0, 12),
        "url": rng.choice([None, f"http://t.co/{hexstr(rng, 10)}"]),
        "entities": {"description": {"urls": []}},
        "protected": rng.random() < 0.05,
        "followers_count": rng.randint(0, 100_000),
        "friends_count": rng.randint(0, 5_000),
        "listed_count": rng.randint(0, 100),
        "created_at": twitter_date(rng),
        "favourites_count": rng.randint(0, 20_000),
        "utc_offset": rng.choice([None, 32400, -18000, 3600]),
        "time_zone": rng.choice([None, "Tokyo", "Irkutsk", "Pacific Time (US & Canada)"]),
        "geo_enabled": rng.random() < 0.3,
        "verified": rng.random() < 0.02,
        "statuses_count": rng.randint(1, 50_000),
        "lang": rng.choice(["ja", "en", "fr", "es"]),
        "contributors_enabled": False,
        "is_translator": False,
        "profile_background_color": color(),
        "profile_background_image_url": "http://abs.twimg.com/images/themes/theme1/bg.png",
        "profile_background_image_url_https": "https://abs.twimg.com/images/themes/theme1/bg.png",
        "profile_background_tile": rng.random() < 0.5,
        "profile_image_url": f"http://pbs.twimg.com/profile_images/{uid}/{hexstr(rng, 8)}_normal.jpeg",
        "profile_image_url_https": f"https://pbs.twimg.com/profile_images/{uid}/{hexstr(rng, 8)}_normal.jpeg",
        "profile_link_color": color(),
        "profile_sidebar_border_color": color(),
        "profile_sidebar_fill_color": color(),
        "profile_text_color": color(),
        "profile_use_background_image": True,
        "default_profile": rng.random() < 0.5,
        "default_profile_image": False,
        "following": False,
        "follow_request_sent": False,
        "notifications": False,
    }


def twitter_status(rng: random.Random, sid: int, depth: int = 0) -> dict:
    mentions = []
    for _ in range(rng.randint(0, 2)):
        mid = rng.randint(10_000, 3_000_000_000)
        start = rng.randint(0, 40)
        mentions.append(
            {
                "screen_name": handle(rng),
                "name": sentence(rng, 1, 2),
                "id": mid,
                "id_str": str(mid),
                "indices": [start, start + rng.randint(5, 15)],
            }
        )
    reply_to = rng.choice([None, rng.randint(10_000, 3_000_000_000)])
    status = {
        "metadata": {"result_type": "recent", "iso_language_code": rng.choice(["ja", "en", "fr"])},
        "created_at": twitter_date(rng),
        "id": sid,
        "id_str": str(sid),
        "text": sentence(rng, 3, 25),
        "source": '<a href="http://twitter.com/download/iphone" rel="nofollow">Twitter for iPhone</a>',
        "truncated": False,
        "in_reply_to_status_id": None,
        "in_reply_to_status_id_str": None,
        "in_reply_to_user_id": reply_to,
        "in_reply_to_user_id_str": None if reply_to is None else str(reply_to),
        "in_reply_to_screen_name": None if reply_to is None else handle(rng),
        "user": twitter_user(rng),
        "geo": None,
        "coordinates": None,
        "place": None,
        "contributors": None,
        "retweet_count": rng.randint(0, 500),
        "favorite_count": rng.randint(0, 500),
        "entities": {
            "hashtags": [{"text": rng.choice(WORDS), "indices": [3, 9]} for _ in range(rng.randint(0, 2))],
            "symbols": [],
            "urls": [],
            "user_mentions": mentions,
        },
        "favorited": False,
        "retweeted": False,
        "lang": rng.choice(["ja", "en", "fr"]),
    }
    # About a third of statuses are retweets that embed the original status.
    if depth == 0 and rng.random() < 0.35:
        status["retweeted_status"] = twitter_status(rng, sid - rng.randint(10**6, 10**9), depth + 1)
    return status


def make_twitter() -> dict:
    rng = random.Random(0x7717)
    max_id = 505_874_924_095_815_681
    statuses = [twitter_status(rng, max_id - i * 37_517) for i in range(70)]
    return {
        "statuses": statuses,
        "search_metadata": {
            "completed_in": 0.087,
            "max_id": max_id,
            "max_id_str": str(max_id),
            "next_results": "?max_id=505874847260352512&q=%E4%B8%80&count=100&include_entities=1",
            "query": "%E4%B8%80",
            "refresh_url": f"?since_id={max_id}&q=%E4%B8%80&include_entities=1",
            "count": len(statuses),
            "since_id": 0,
            "since_id_str": "0",
        },
    }


# --- github: activity feed, events embedding repository objects --------------

REPO_URL_FIELDS = [
    "forks",
    "keys",
    "collaborators",
    "teams",
    "hooks",
    "issue_events",
    "events",
    "assignees",
    "branches",
    "tags",
    "blobs",
    "git_tags",
    "git_refs",
    "trees",
    "statuses",
    "languages",
    "stargazers",
    "contributors",
    "subscribers",
    "subscription",
    "commits",
    "git_commits",
    "comments",
    "issue_comment",
    "contents",
    "compare",
    "merges",
    "archive",
    "downloads",
    "issues",
    "pulls",
    "milestones",
    "notifications",
    "labels",
]


def github_user(rng: random.Random) -> dict:
    login = handle(rng)
    gid = hexstr(rng, 32)
    return {
        "url": f"https://api.github.com/users/{login}",
        "login": login,
        "avatar_url": f"https://secure.gravatar.com/avatar/{gid}?d=https://a248.e.akamai.net/assets.github.com%2Fimages%2Fgravatars%2Fgravatar-user-420.png",
        "id": rng.randint(1_000, 3_000_000),
        "gravatar_id": gid,
    }


def github_repository(rng: random.Random, owner: dict, name: str) -> dict:
    api = f"https://api.github.com/repos/{owner['login']}/{name}"
    repo = {
        "id": rng.randint(1_000_000, 8_000_000),
        "name": name,
        "full_name": f"{owner['login']}/{name}",
        "owner": owner,
        "private": False,
        "html_url": f"https://github.com/{owner['login']}/{name}",
        "description": sentence(rng, 2, 10),
        "fork": rng.random() < 0.3,
        "url": api,
    }
    for field in REPO_URL_FIELDS:
        repo[f"{field}_url"] = f"{api}/{field}{{/id}}"
    repo.update(
        {
            "created_at": iso_date(rng),
            "updated_at": iso_date(rng),
            "pushed_at": iso_date(rng),
            "git_url": f"git://github.com/{owner['login']}/{name}.git",
            "ssh_url": f"git@github.com:{owner['login']}/{name}.git",
            "clone_url": f"https://github.com/{owner['login']}/{name}.git",
            "homepage": rng.choice([None, "", f"http://{name}.example.org/"]),
            "size": rng.randint(0, 100_000),
            "watchers_count": rng.randint(0, 5_000),
            "language": rng.choice([None, "Python", "Rust", "JavaScript", "C"]),
            "has_issues": True,
            "has_downloads": True,
            "has_wiki": rng.random() < 0.7,
            "forks_count": rng.randint(0, 500),
            "mirror_url": None,
            "open_issues_count": rng.randint(0, 200),
            "forks": rng.randint(0, 500),
            "open_issues": rng.randint(0, 200),
            "watchers": rng.randint(0, 5_000),
            "master_branch": "master",
            "default_branch": "master",
            "public": True,
        }
    )
    return repo


def github_payload(rng: random.Random, kind: str, actor: dict, repo_name: str) -> dict:
    if kind == "PushEvent":
        commits = [
            {
                "url": f"https://api.github.com/repos/{actor['login']}/{repo_name}/commits/{hexstr(rng, 40)}",
                "distinct": rng.random() < 0.9,
                "message": sentence(rng, 3, 15),
                "author": {"email": f"{actor['login']}@example.com", "name": actor["login"]},
                "sha": hexstr(rng, 40),
            }
            for _ in range(rng.randint(1, 3))
        ]
        return {
            "size": len(commits),
            "head": hexstr(rng, 40),
            "commits": commits,
            "distinct_size": len(commits),
            "push_id": rng.randint(10**8, 2 * 10**8),
            "ref": "refs/heads/master",
            "before": hexstr(rng, 40),
        }
    if kind == "ForkEvent":
        return {"forkee": github_repository(rng, github_user(rng), repo_name)}
    if kind in ("IssuesEvent", "IssueCommentEvent"):
        number = rng.randint(1, 2_000)
        issue = {
            "url": f"https://api.github.com/repos/{actor['login']}/{repo_name}/issues/{number}",
            "labels_url": f"https://api.github.com/repos/{actor['login']}/{repo_name}/issues/{number}/labels{{/name}}",
            "comments_url": f"https://api.github.com/repos/{actor['login']}/{repo_name}/issues/{number}/comments",
            "events_url": f"https://api.github.com/repos/{actor['login']}/{repo_name}/issues/{number}/events",
            "html_url": f"https://github.com/{actor['login']}/{repo_name}/issues/{number}",
            "id": rng.randint(10**7, 2 * 10**7),
            "number": number,
            "title": sentence(rng, 2, 8),
            "user": github_user(rng),
            "labels": [],
            "state": rng.choice(["open", "closed"]),
            "assignee": None,
            "milestone": None,
            "comments": rng.randint(0, 30),
            "created_at": iso_date(rng),
            "updated_at": iso_date(rng),
            "closed_at": rng.choice([None, iso_date(rng)]),
            "pull_request": {"html_url": None, "diff_url": None, "patch_url": None},
            "body": sentence(rng, 5, 40),
        }
        return {"action": rng.choice(["opened", "closed", "created"]), "issue": issue}
    if kind == "CreateEvent":
        return {
            "ref": "master",
            "ref_type": rng.choice(["branch", "repository", "tag"]),
            "master_branch": "master",
            "description": sentence(rng, 2, 8),
        }
    return {"action": "started"}  # WatchEvent


def make_github() -> list:
    rng = random.Random(0x617B)
    kinds = ["PushEvent"] * 5 + ["WatchEvent"] * 2 + ["ForkEvent", "IssuesEvent", "IssueCommentEvent", "CreateEvent"]
    events = []
    for _ in range(34):
        kind = rng.choice(kinds)
        actor = github_user(rng)
        repo_name = handle(rng)
        event = {
            "created_at": iso_date(rng),
            "actor": actor,
            "payload": github_payload(rng, kind, actor, repo_name),
            "repo": {
                "url": f"https://api.github.com/repos/{actor['login']}/{repo_name}",
                "id": rng.randint(1_000_000, 8_000_000),
                "name": f"{actor['login']}/{repo_name}",
            },
            "id": str(rng.randint(1_650_000_000, 1_660_000_000)),
            "type": kind,
            "public": True,
        }
        if rng.random() < 0.2:
            event["org"] = github_user(rng)
        events.append(event)
    return events


# --- citm_catalog: dicts keyed by numeric strings, lists of ints -------------

CITM_WORDS = [
    "Orchestre",
    "Philharmonique",
    "Récital",
    "Opéra",
    "Musique",
    "baroque",
    "chambre",
    "Symphonie",
    "Création",
    "Jeune",
    "public",
    "Abonné",
    "Violon",
    "Piano",
    "Chœur",
    "Danse",
    "Génération",
    "Été",
    "Salle",
    "Pleyel",
]


def citm_name(rng: random.Random, lo: int = 1, hi: int = 4) -> str:
    return " ".join(rng.choice(CITM_WORDS) for _ in range(rng.randint(lo, hi)))


def id_names(rng: random.Random, base: int, count: int) -> dict:
    return {str(base + i): citm_name(rng) for i in range(count)}


def make_citm_catalog() -> dict:
    rng = random.Random(0xC17)
    areas = id_names(rng, 205_705_993, 17)
    seat_categories = id_names(rng, 338_937_235, 40)
    sub_topics = id_names(rng, 337_184_262, 19)
    topics = id_names(rng, 107_888_604, 4)
    area_ids = [int(k) for k in areas]
    seat_ids = [int(k) for k in seat_categories]
    sub_topic_ids = [int(k) for k in sub_topics]
    topic_ids = [int(k) for k in topics]

    events = {}
    for i in range(150):
        eid = 138_586_341 + i * 4
        events[str(eid)] = {
            "description": rng.choice([None, None, citm_name(rng, 4, 10)]),
            "id": eid,
            "logo": rng.choice([None, f"/images/UE0AAAAA{hexstr(rng, 8).upper()}AAAAZDSVRN"]),
            "name": citm_name(rng),
            "subTopicIds": rng.sample(sub_topic_ids, rng.randint(1, 4)),
            "subjectCode": None,
            "subtitle": rng.choice([None, citm_name(rng)]),
            "topicIds": rng.sample(topic_ids, rng.randint(1, 3)),
        }

    event_ids = [int(k) for k in events]
    performances = []
    for i in range(200):
        cats = rng.sample(seat_ids, rng.randint(1, 4))
        performances.append(
            {
                "eventId": rng.choice(event_ids),
                "id": 339_887_544 + i * 7,
                "logo": rng.choice([None, f"/images/UE0AAAAA{hexstr(rng, 8).upper()}AAAAZDSVRN"]),
                "name": None,
                "prices": [
                    {"amount": rng.randint(10, 200) * 250, "audienceSubCategoryId": 337_100_890, "seatCategoryId": c}
                    for c in cats
                ],
                "seatCategories": [
                    {
                        "areas": [{"areaId": a, "blockIds": []} for a in rng.sample(area_ids, rng.randint(2, 9))],
                        "seatCategoryId": c,
                    }
                    for c in cats
                ],
                "seatMapImage": None,
                "start": 1_372_872_600_000 + i * 86_400_000,
                "venueCode": "PLEYEL_PLEYEL",
            }
        )

    return {
        "areaNames": areas,
        "audienceSubCategoryNames": {"337100890": "Abonné"},
        "blockNames": {},
        "events": events,
        "performances": performances,
        "seatCategoryNames": seat_categories,
        "subTopicNames": sub_topics,
        "subjectNames": {},
        "topicNames": topics,
        "topicSubTopics": {str(t): rng.sample(sub_topic_ids, rng.randint(1, 6)) for t in topic_ids},
        "venueNames": {"PLEYEL_PLEYEL": "Salle Pleyel"},
    }


# --- canada: GeoJSON polygon made of many rings of float pairs ----------------


def ring(rng: random.Random, n: int) -> list:
    # A closed random walk: coordinates are full-precision doubles such as
    # -65.61361699999998, the hard case for float parsing and shortest repr.
    lon, lat = rng.uniform(-140.0, -53.0), rng.uniform(42.0, 83.0)
    points = []
    for _ in range(n):
        lon += rng.uniform(-0.01, 0.01)
        lat += rng.uniform(-0.01, 0.01)
        # Snap to 6 decimals then perturb by float arithmetic, as in the source data.
        points.append([round(lon, 6) + 1e-14 * rng.randint(-3, 3), round(lat, 6) + 1e-14 * rng.randint(-3, 3)])
    points.append(list(points[0]))
    return points


def make_canada() -> dict:
    rng = random.Random(0xCA7ADA)
    sizes = [rng.choice([4, 9, 14, 23, 28, 33, 60, 120, 280]) for _ in range(130)]
    return {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {"name": "Canada"},
                "geometry": {"type": "Polygon", "coordinates": [ring(rng, n) for n in sizes]},
            }
        ],
    }


DOCUMENTS = {
    "twitter": make_twitter,
    "github": make_github,
    "citm_catalog": make_citm_catalog,
    "canada": make_canada,
}


def write_all(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, make in DOCUMENTS.items():
        text = json.dumps(make(), ensure_ascii=False, separators=(",", ":")) + "\n"
        path = out / f"{name}.json"
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path} ({len(text.encode()):,} bytes)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT})")
    write_all(parser.parse_args().out)


if __name__ == "__main__":
    main()
