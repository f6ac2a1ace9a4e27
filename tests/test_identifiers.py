"""The identifier normalizer over every spelling family measured in the NIST corpus.

The spellings are the shapes and exact spellings of ``../shared/corpus/nist/identifiers.md``
(counts there); the negatives are its hazards. Each spelling must give its canonical id and
its full form (with revision, volume, part, enhancement).
"""

from __future__ import annotations

import pytest

from docintel.identifiers import KINDS, clean, external_references, find_identifiers, normalize

# (surface, canonical, full): SP 800-x, the 30 commonest shapes and the exact spellings
SP = [
    ("Special Publication 800-53", "SP 800-53", "SP 800-53"),
    ("SP 800-53", "SP 800-53", "SP 800-53"),
    ("NIST SP 800-53", "SP 800-53", "SP 800-53"),
    ("NIST SP 800-53 Rev. 4", "SP 800-53", "SP 800-53 Rev. 4"),
    ("NIST Special Publication 800-53", "SP 800-53", "SP 800-53"),
    ("800-53", "SP 800-53", "SP 800-53"),
    ("SPECIAL PUBLICATION 800-160, VOLUME 1", "SP 800-160", "SP 800-160 Vol. 1"),
    ("SPECIAL PUBLICATION 800-37 REVISION 2", "SP 800-37", "SP 800-37 Rev. 2"),
    ("NIST SP 800-37, REVISION 2", "SP 800-37", "SP 800-37 Rev. 2"),
    ("NIST SP 800-160, VOLUME 2", "SP 800-160", "SP 800-160 Vol. 2"),
    ("SP 800-53A", "SP 800-53A", "SP 800-53A"),
    ("NIST SP 800-53A", "SP 800-53A", "SP 800-53A"),
    ("NIST Special Publications 800-37", "SP 800-37", "SP 800-37"),
    ("NIST SP 800-53 Revision 4", "SP 800-53", "SP 800-53 Rev. 4"),
    ("NIST SP 800-63-3", "SP 800-63", "SP 800-63 Rev. 3"),
    ("Special Publication 800-37, Revision 1", "SP 800-37", "SP 800-37 Rev. 1"),
    ("SP 800-63-2", "SP 800-63", "SP 800-63 Rev. 2"),
    ("NIST 800-53", "SP 800-53", "SP 800-53"),
    ("NIST 800-160, Vol. 1", "SP 800-160", "SP 800-160 Vol. 1"),
    ("NIST 800-160 Vol. 1", "SP 800-160", "SP 800-160 Vol. 1"),
    ("NIST Special Publication 800-53 Revision 4", "SP 800-53", "SP 800-53 Rev. 4"),
    ("NIST SP 800- 53", "SP 800-53", "SP 800-53"),
    ("SP 800-57 Part 1", "SP 800-57", "SP 800-57 Part 1"),
    ("800-53A", "SP 800-53A", "SP 800-53A"),
    ("NIST Special Publication 800-53A", "SP 800-53A", "SP 800-53A"),
    ("SP 800-63C", "SP 800-63C", "SP 800-63C"),
    ("SP 800-63B", "SP 800-63B", "SP 800-63B"),
    ("Special Publication 800-53A", "SP 800-53A", "SP 800-53A"),
    ("NIST Special Publication (SP) 800-30", "SP 800-30", "SP 800-30"),
    ("SP 800- 37", "SP 800-37", "SP 800-37"),
    ("NIST SP 800-37, Revision 1", "SP 800-37", "SP 800-37 Rev. 1"),
    ("Special Publication 800-53, Revision 3", "SP 800-53", "SP 800-53 Rev. 3"),
    ("NIST 800-53 Revision 4", "SP 800-53", "SP 800-53 Rev. 4"),
    ("SP 800-53r4", "SP 800-53", "SP 800-53 Rev. 4"),
    ("SP 800-53, Revision 4", "SP 800-53", "SP 800-53 Rev. 4"),
    ("SP800-53", "SP 800-53", "SP 800-53"),
    ("800-53r5", "SP 800-53", "SP 800-53 Rev. 5"),
    ("NIST.SP.800-53r4", "SP 800-53", "SP 800-53 Rev. 4"),
    ("NIST.SP.800-60v1r1", "SP 800-60", "SP 800-60 Vol. 1 Rev. 1"),
    ("NIST.SP.800-160v1", "SP 800-160", "SP 800-160 Vol. 1"),
    ("NIST.SP.800-57pt1r4", "SP 800-57", "SP 800-57 Part 1 Rev. 4"),
    ("SP 800-60-2", "SP 800-60", "SP 800-60 Vol. 2"),
    ("SP 800-60-1", "SP 800-60", "SP 800-60 Vol. 1"),
    ("SP 800-160-1", "SP 800-160", "SP 800-160 Vol. 1"),
    ("NIST SP 800-60 Revision 1, Volume 1", "SP 800-60", "SP 800-60 Vol. 1 Rev. 1"),
    ("NIST Special Publication 800-60 Volume II", "SP 800-60", "SP 800-60 Vol. 2"),
    ("Special Publication (SP) 800-30 Revision 1", "SP 800-30", "SP 800-30 Rev. 1"),
    ("NIST SP800-171", "SP 800-171", "SP 800-171"),
    ("NIST Special Publication (SP) 800-171 Revision 1", "SP 800-171", "SP 800-171 Rev. 1"),
    ("NIST Special Publication 800- 171", "SP 800-171", "SP 800-171"),
    ("Special Publication 800-63, Revision 1", "SP 800-63", "SP 800-63 Rev. 1"),
    ("NIST SPs 800-37", "SP 800-37", "SP 800-37"),
    ("NIST SP 1800-5", "SP 1800-5", "SP 1800-5"),
]
FIPS = [
    ("FIPS 199", "FIPS 199", "FIPS 199"),
    ("FIPS Publication 199", "FIPS 199", "FIPS 199"),
    ("FIPS 140-2", "FIPS 140", "FIPS 140-2"),
    ("FIPS 201-2", "FIPS 201", "FIPS 201-2"),
    ("Federal Information Processing Standards Publication 199", "FIPS 199", "FIPS 199"),
    ("Federal Information Processing Standard (FIPS) 199", "FIPS 199", "FIPS 199"),
    ("NIST.FIPS.199", "FIPS 199", "FIPS 199"),
    ("Federal Information Processing Standards (FIPS) Publication 199", "FIPS 199", "FIPS 199"),
    ("Federal Information Processing Standards (FIPS) 200", "FIPS 200", "FIPS 200"),
    ("Federal Information Processing Standards Publication 140-2", "FIPS 140", "FIPS 140-2"),
    ("FIPS Publication 140-2", "FIPS 140", "FIPS 140-2"),
    ("FIPS PUB 199", "FIPS 199", "FIPS 199"),
    ("Federal Information Processing Standard (FIPS) 140-2", "FIPS 140", "FIPS 140-2"),
    ("Federal Information Processing Standard (FIPS) Publication 199", "FIPS 199", "FIPS 199"),
    ("Federal Information Processing Standard 199", "FIPS 199", "FIPS 199"),
    ("NIST.FIPS.201-2", "FIPS 201", "FIPS 201-2"),
    ("Federal Information Processing Standards (FIPS) Publication 201-2", "FIPS 201", "FIPS 201-2"),
    ("Federal Information Processing Standards 200", "FIPS 200", "FIPS 200"),
    ("Federal Information Processing Standards Publication (FIPS) 199", "FIPS 199", "FIPS 199"),
    ("Federal Information Processing Standards (FIPS) 140-2", "FIPS 140", "FIPS 140-2"),
    ("Federal Information Processing Standard Publication 199", "FIPS 199", "FIPS 199"),
    ("Federal Information Processing Standard Publication 140-2", "FIPS 140", "FIPS 140-2"),
    ("FIPS-199", "FIPS 199", "FIPS 199"),
]
NISTIR = [
    ("NISTIR 7298", "NISTIR 7298", "NISTIR 7298"),
    ("NIST.IR.8011-1", "NISTIR 8011", "NISTIR 8011 Vol. 1"),
    ("NIST.IR.8011-2", "NISTIR 8011", "NISTIR 8011 Vol. 2"),
    ("NIST IR 7298 Revision 2", "NISTIR 7298", "NISTIR 7298 Rev. 2"),
    ("NIST.IR.8062", "NISTIR 8062", "NISTIR 8062"),
    ("IR 8062", "NISTIR 8062", "NISTIR 8062"),
    ("NIST IR 7298", "NISTIR 7298", "NISTIR 7298"),
    ("Interagency Report 7298", "NISTIR 7298", "NISTIR 7298"),
    ("NISTIR 8011 Volume 1", "NISTIR 8011", "NISTIR 8011 Vol. 1"),
    ("NIST Interagency Report 8062", "NISTIR 8062", "NISTIR 8062"),
    ("IR 8011-1", "NISTIR 8011", "NISTIR 8011 Vol. 1"),
    ("Internal Report 8062", "NISTIR 8062", "NISTIR 8062"),
    ("NISTIR8062", "NISTIR 8062", "NISTIR 8062"),
    ("NISTIR 7298 Revision 2", "NISTIR 7298", "NISTIR 7298 Rev. 2"),
    ("NIST.IR.7298r2", "NISTIR 7298", "NISTIR 7298 Rev. 2"),
    ("Interagency Report 8011, Volume 1", "NISTIR 8011", "NISTIR 8011 Vol. 1"),
    ("NISTIR-7497", "NISTIR 7497", "NISTIR 7497"),
    ("NISTIR 8011, Volume 2", "NISTIR 8011", "NISTIR 8011 Vol. 2"),
    ("NIST Interagency Report (NISTIR) 7298", "NISTIR 7298", "NISTIR 7298"),
    ("NIST Internal Report 8062", "NISTIR 8062", "NISTIR 8062"),
    ("Interagency or Internal Report 7298r2", "NISTIR 7298", "NISTIR 7298 Rev. 2"),
    ("Interagency Report (NISTIR) 7298 Revision 2", "NISTIR 7298", "NISTIR 7298 Rev. 2"),
    ("Interagency Report (NISTIR) 8011", "NISTIR 8011", "NISTIR 8011"),
    ("Interagency Report (NISTIR) 8011 Volume 2", "NISTIR 8011", "NISTIR 8011 Vol. 2"),
    ("Interagency Report 7298, Revision 2", "NISTIR 7298", "NISTIR 7298 Rev. 2"),
    ("NIST Interagency Reports 7298", "NISTIR 7298", "NISTIR 7298"),
    ("NIST- IR-7692", "NISTIR 7692", "NISTIR 7692"),
]
CSF = [
    ("Cybersecurity Framework", "CSF", "CSF"),
    ("NIST.CSWP.04162018", "CSF", "CSF 1.1"),
    ("NIST Cybersecurity Framework", "CSF", "CSF"),
    ("CSF", "CSF", "CSF"),
    ("[NIST CSF]", "CSF", "CSF"),
    ("Framework for Improving Critical Infrastructure Cybersecurity", "CSF", "CSF"),
    ("Framework for Improving Critical Infrastructure Cybersecurity Version 1.1", "CSF", "CSF 1.1"),
    ("cybersecurity-framework-021214", "CSF", "CSF 1.0"),
    ("PR.AC-1", "PR.AC-1", "PR.AC-1"),
    ("RS.CO- 4", "RS.CO-4", "RS.CO-4"),
    ("ID. BE-3", "ID.BE-3", "ID.BE-3"),
    ("RS.CO-4:G1", "RS.CO-4", "RS.CO-4"),
    ("ID.-BE-3", "ID.BE-3", "ID.BE-3"),
    ("PR.IP-10", "PR.IP-10", "PR.IP-10"),
    ("ID.SC", "ID.SC", "ID.SC"),
    ("GV.OC-01", "GV.OC-01", "GV.OC-01"),
]
CONTROLS = [
    ("AC-2", "AC-2", "AC-2"),
    ("AC-2 (1)", "AC-2", "AC-2(1)"),
    ("AC-2(1)", "AC-2", "AC-2(1)"),
    ("PM- 11", "PM-11", "PM-11"),
    ("AC-07-z-02-z", "AC-7", "AC-7(2)"),
    ("AC-7-z-02-z", "AC-7", "AC-7(2)"),
    ("AC-07-z-02-b", "AC-7", "AC-7(2)"),
    ("CM-08-a", "CM-8", "CM-8"),
    ("CM-8-b", "CM-8", "CM-8"),
    ("AC-07", "AC-7", "AC-7"),
    ("SI-4 ( 4 )", "SI-4", "SI-4(4)"),
    ("IR-4", "IR-4", "IR-4"),
    ("SR-3", "SR-3", "SR-3"),
    ("AU Family", "AU family", "AU family"),
]
HIPAA = [
    ("164.308(a)(1)(ii)(A)", "45 CFR 164.308(a)(1)(ii)(A)"),
    ("164.308(a)(1)", "45 CFR 164.308(a)(1)"),
    ("164.310(a)(2)(iv)", "45 CFR 164.310(a)(2)(iv)"),
    ("164.308(a)", "45 CFR 164.308(a)"),
    ("164.306", "45 CFR 164.306"),
    ("45 C.F.R. §§ 164.308(a)(1)(ii)(A)", "45 CFR 164.308(a)(1)(ii)(A)"),
    ("§ 164.308(a)(1)", "45 CFR 164.308(a)(1)"),
    ("§ 164.308(a)", "45 CFR 164.308(a)"),
    ("45 C.F.R. § 164.308(a)(1)(ii)", "45 CFR 164.308(a)(1)(ii)"),
    ("§ 164.308", "45 CFR 164.308"),
    ("45 C.F.R. Sec.164.103", "45 CFR 164.103"),
    ("45 CFR 164.312", "45 CFR 164.312"),
    ("45 CFR Part 164", "45 CFR 164"),
    ("164.308.(a)(7)(ii)(E)", "45 CFR 164.308(a)(7)(ii)(E)"),
    ("164.308(6)(i)", "45 CFR 164.308(6)(i)"),
]
OTHER = [
    ("RFC 6749", "rfc", "RFC 6749"),
    ("RFC6749", "rfc", "RFC 6749"),
    ("IETF RFC 2119", "rfc", "RFC 2119"),
    ("CVE-2021-44228", "cve", "CVE-2021-44228"),
    ("14 CFR 25.1707", "cfr", "14 CFR 25.1707"),
    ("BP36-2", "part_number", "BP-36-2"),
    ("BP-36-2", "part_number", "BP-36-2"),
    ("Contract No. GS-35F-0119Y", "contract", "Contract GS-35F-0119Y"),
    ("Exhibit 10.1", "exhibit", "Exhibit 10.1"),
]


@pytest.mark.parametrize(("surface", "canonical", "full"), SP + FIPS + NISTIR + CSF + CONTROLS)
def test_measured_spelling_normalizes(surface, canonical, full):
    ident = normalize(surface)
    assert ident is not None, surface
    assert (ident.canonical, ident.full) == (canonical, full)


@pytest.mark.parametrize(("surface", "canonical"), HIPAA)
def test_hipaa_sections_are_45_cfr(surface, canonical):
    ident = normalize(surface)
    assert ident is not None and ident.kind == "cfr"
    assert ident.canonical == canonical
    assert ident.attr("title") == "45"


@pytest.mark.parametrize(("surface", "kind", "canonical"), OTHER)
def test_other_families(surface, kind, canonical):
    ident = normalize(surface)
    assert ident is not None and (ident.kind, ident.canonical) == (kind, canonical)


def test_revision_volume_part_are_attributes_the_link_key_is_the_base():
    a, b = normalize("NIST SP 800-53 Rev. 4"), normalize("Special Publication 800-53")
    assert a.canonical == b.canonical == "SP 800-53"
    assert (a.revision, b.revision) == ("4", None)
    v = normalize("NIST.SP.800-60v2r1")
    assert (v.attr("volume"), v.revision) == ("2", "1")
    assert normalize("NIST.SP.800-57pt1r4").attr("part") == "1"
    assert normalize("FIPS 140-2").revision == "2"


def test_letter_suffix_is_another_publication():
    assert normalize("SP 800-53A").canonical != normalize("SP 800-53").canonical
    assert normalize("SP 800-171A").canonical == "SP 800-171A"
    assert normalize("SP 800-38D").canonical == "SP 800-38D"


def test_enhancement_lists_give_one_mention_per_enhancement():
    found = find_identifiers("AC-2 (1) (2) (3) (4)")
    assert [m.ident.full for m in found] == ["AC-2(1)", "AC-2(2)", "AC-2(3)", "AC-2(4)"]
    assert {m.ident.canonical for m in found} == {"AC-2"}
    compound = find_identifiers("CP-2(4)(5)")
    assert [m.ident.full for m in compound] == ["CP-2(4)", "CP-2(5)"]


def test_lists_after_one_prefix():
    text = "NIST Special Publications (SPs) 800-30, 800-39, 800-53, 800-53A, and 800-137 apply."
    assert [m.ident.canonical for m in find_identifiers(text)] == [
        "SP 800-30",
        "SP 800-39",
        "SP 800-53",
        "SP 800-53A",
        "SP 800-137",
    ]
    fips = find_identifiers("FIPS Publications 199 and 200")
    assert [m.ident.canonical for m in fips] == ["FIPS 199", "FIPS 200"]
    cfr = find_identifiers("45 C.F.R. §§ 164.308(a)(1)(ii)(A), 164.310(a)(2)(iv), and 164.312(b)")
    assert [m.ident.canonical for m in cfr] == [
        "45 CFR 164.308(a)(1)(ii)(A)",
        "45 CFR 164.310(a)(2)(iv)",
        "45 CFR 164.312(b)",
    ]


def test_requirement_ids_only_in_requirement_context():
    assert [m.ident.canonical for m in find_identifiers("see SP 800-171 requirement 3.1.8 here")] == [
        "SP 800-171",
        "3.1.8",
    ]
    assert [
        m.ident.canonical for m in find_identifiers("security requirements 3.1.1, 3.1.2 and 3.13.11")
    ] == [
        "3.1.1",
        "3.1.2",
        "3.13.11",
    ]
    obj = find_identifiers("Determine if: 3.1.8[a] the means of limiting")
    assert obj[0].ident.canonical == "3.1.8" and obj[0].ident.attr("objective") == "a"
    inside = find_identifiers("3.13.11 Employ FIPS-validated cryptography", home=["SP 800-171"])
    assert inside[0].ident.canonical == "3.13.11"


# --- hazards of identifiers.md: what must NOT be read, or not read that way -------------------
def test_ir_control_is_not_a_nistir():
    assert [(m.ident.kind, m.ident.canonical) for m in find_identifiers("IR-4 Incident Handling")] == [
        ("control", "IR-4")
    ]
    assert find_identifiers("IR-7692") == []  # four digits are no control, and no NISTIR without NIST
    assert [m.ident.kind for m in find_identifiers("see NIST- IR-7692")] == ["nistir"]


def test_footnotes_glued_to_numbers():
    sp = normalize("NIST Special Publication (SP) 800-398")
    assert sp.canonical == "SP 800-39" and sp.attr("footnote") == "8"
    assert normalize("NIST SP 800-537").canonical == "SP 800-53"
    assert find_identifiers("MA-1122") == []
    assert [
        m.ident.canonical for m in find_identifiers("in accordance with FIPS Publication 199.15 The")
    ] == ["FIPS 199"]


def test_section_numbers_are_not_requirements():
    assert find_identifiers("as described in Section 3.2.1, the plan") == []
    assert find_identifiers("3.2.1 Overview") == []


def test_unknown_csf_category_is_rejected():
    assert find_identifiers("RC.MI-1") == []
    assert [m.ident.canonical for m in find_identifiers("(PR. AT-4)")] == ["PR.AT-4"]  # not control AT-4


def test_bare_numbers_need_a_safe_context():
    assert find_identifiers("call 800-53 now") == []  # no series named in the text
    assert [m.ident.canonical for m in find_identifiers("call 800-53 now", series_named=True)] == [
        "SP 800-53"
    ]
    assert [m.ident.canonical for m in find_identifiers("[800-82] Port")] == ["SP 800-82"]
    assert find_identifiers("call 1-800-555-0100 or 800-555-0100", series_named=True) == []
    assert [m.ident.canonical for m in find_identifiers("NIST SP 800- 61[5]")] == ["SP 800-61"]


def test_em_dash_is_not_a_hyphen():
    assert [m.ident.canonical for m in find_identifiers("Appendix B\u2014CSF Core Components")] == ["CSF"]
    assert normalize("SP 800\u201153").canonical == "SP 800-53"  # a non-breaking hyphen is one


def test_seed_part_numbers():
    text = "Battery packs BP-36-2 with serial numbers 2509-0001 to 2509-0800; the S-2 uses part BP36-2."
    assert [m.ident.canonical for m in find_identifiers(text)] == ["BP-36-2", "BP-36-2"]


def test_mention_spans_and_surfaces():
    text = "Controls in NIST SP 800-53 Rev. 4 map to PR.AC-1 and AC-2 (1)."
    for m in find_identifiers(text):
        assert clean(text)[m.start : m.end] == m.surface
    assert [m.surface for m in find_identifiers(text)] == ["NIST SP 800-53 Rev. 4", "PR.AC-1", "AC-2 (1)"]


def test_not_an_identifier_is_none():
    assert normalize("the quick brown fox") is None
    assert normalize("") is None


def test_external_references_have_the_refpatterns_row_shape():
    rows = external_references("See SP 800-90 and FIPS 180-4; AC-2 is a control, not a reference.")
    assert [r["ref_target"] for r in rows] == ["SP 800-90", "FIPS 180-4"]
    assert set(rows[0]) == {
        "start",
        "end",
        "anchor_text",
        "ref_type",
        "ref_target",
        "sub_selector",
        "pattern",
    }
    assert rows[0]["ref_type"] == "external"


def test_kinds_are_data():
    names = [k.name for k in KINDS]
    assert len(names) == len(set(names))
    for k in KINDS:
        assert k.description and k.regex.pattern


def test_enhancement_item_is_one_mention():
    # NISTIR 8011's "MA-3(1)(1)": enhancement 1, its item (1); not enhancement 1 twice
    assert [m.ident.full for m in find_identifiers("MA-3(1)(1)")] == ["MA-3(1)"]


def test_container_ids_of_cfr_sections():
    from docintel.identifiers import container_ids

    assert container_ids("45 CFR 164.308(a)(1)") == ["45 CFR 164.308", "45 CFR 164"]
    assert container_ids("45 CFR 164.308") == ["45 CFR 164"]
    assert container_ids("45 CFR 164") == [] and container_ids("SP 800-53") == []
    assert normalize("Request for Comments: 6749").canonical == "RFC 6749"
