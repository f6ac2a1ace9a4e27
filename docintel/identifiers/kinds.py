"""The facts the identifier normalizer relies on, as data (see ``identifiers.py``).

Each table is a property of an identifier system, not of a document: which publication
numbers exist, which suffix means a volume, which CSF categories and SP 800-53 control
families there are, which CFR sections the HIPAA rules hold.
"""

from __future__ import annotations

#: Highest publication number per SP series. A larger number is a footnote glued to a real
#: one ("SP 800-398" = SP 800-39 + footnote 8, measured in CSF 1.1; "SP 800-537" in SP 800-128).
SP_MAX = {"800": 240, "500": 340, "1800": 40}

#: Publications whose "-N" suffix is the volume, not the revision: "SP 800-60-2" is Volume II,
#: "SP 800-160-1" Volume 1 (SP 800-37r2 draft), while "SP 800-63-3" is Revision 3.
SP_DASH_IS_VOLUME = frozenset({"SP 800-60", "SP 800-160"})

#: Highest FIPS publication number (FIPS 206 is the newest in 2025).
FIPS_MAX = 210

#: The Cybersecurity Framework's DOI / URL dates and the version they name.
CSF_DOI_VERSION = {"04162018": "1.1", "021214": "1.0"}

#: CSF categories per function, versions 1.1 and 2.0 together.
CSF_CATEGORIES: dict[str, frozenset[str]] = {
    "ID": frozenset({"AM", "BE", "GV", "RA", "RM", "SC", "IM"}),
    "PR": frozenset({"AC", "AT", "DS", "IP", "MA", "PT", "AA", "PS", "IR"}),
    "DE": frozenset({"AE", "CM", "DP"}),
    "RS": frozenset({"RP", "CO", "AN", "MI", "IM", "MA"}),
    "RC": frozenset({"RP", "IM", "CO"}),
    "GV": frozenset({"OC", "RM", "RR", "PO", "OV", "SC"}),
}

#: Categories that exist only in CSF 2.0, whose subcategories are written with two digits.
CSF_V2_ONLY = frozenset(
    {"GV.OC", "GV.RM", "GV.RR", "GV.PO", "GV.OV", "GV.SC", "ID.IM", "PR.AA", "PR.PS", "PR.IR", "RS.MA"}
)

#: SP 800-53 control families (Rev. 5 adds PT and SR).
CONTROL_FAMILIES = {
    "AC": "Access Control",
    "AT": "Awareness and Training",
    "AU": "Audit and Accountability",
    "CA": "Assessment, Authorization, and Monitoring",
    "CM": "Configuration Management",
    "CP": "Contingency Planning",
    "IA": "Identification and Authentication",
    "IR": "Incident Response",
    "MA": "Maintenance",
    "MP": "Media Protection",
    "PE": "Physical and Environmental Protection",
    "PL": "Planning",
    "PM": "Program Management",
    "PS": "Personnel Security",
    "PT": "PII Processing and Transparency",
    "RA": "Risk Assessment",
    "SA": "System and Services Acquisition",
    "SC": "System and Communications Protection",
    "SI": "System and Information Integrity",
    "SR": "Supply Chain Risk Management",
}

#: The publications inside which a bare "3.x.y" is an SP 800-171 requirement id.
REQ171_HOME = ("SP 800-171", "SP 800-171A")

#: Sections of 45 CFR Parts 160 and 164 (HIPAA rules): a bare "164.308" is read as a section
#: only when it is one of these (a "§" before it is enough for any number).
HIPAA_SECTIONS = frozenset(
    [f"160.{n}" for n in (101, 102, 103, 104, 105, 201, 202, 203, 204, 205)]
    + [f"160.{n}" for n in range(300, 317, 2)]
    + [f"160.{n}" for n in (400, 401, *range(402, 427, 2))]
    + [f"160.{n}" for n in range(500, 553, 2)]
    + [f"164.{n}" for n in (102, 103, 104, 105, 106)]
    + [f"164.{n}" for n in range(302, 319, 2)]
    + [f"164.{n}" for n in range(400, 415, 2)]
    + [f"164.{n}" for n in (500, 501, *range(502, 515, 2), *range(520, 535, 2))]
)
