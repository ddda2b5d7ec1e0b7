"""In-scope OpInfos that still disagree with torch, one reason each; they run as strict xfail.

At most 20 entries and none of ``common.COMMON`` (tests/opinfo/test_opinfo.py checks both).
"""

KNOWN_FAILURES: dict = {}
