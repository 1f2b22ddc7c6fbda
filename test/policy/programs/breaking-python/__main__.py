"""Breaks each rule of the policy pack once, as breaking-yaml does, in Python."""

import pulumi_audience as audience

leads = audience.get_cohort_output(name="Leads")

# audience-credentials-from-secrets: a password written in the program.
audience.Connection(
    "warehouse",
    name="growth-warehouse",
    options={"type": "postgres", "host": "db.internal", "port": 5432, "database": "crm", "schema": "public", "user": "loader", "password": "hunter2"},
)

# audience-scope-created-in-preview and audience-naming.
pipeline = audience.Scope(
    "pipeline",
    name="Pipeline One",
    population={"cohort_ids": [leads.id]},
    payload={"cohort_ids": [leads.id]},
    preview=False,
)

# audience-account-quota: a second scope, over the quota of one.
audience.Scope(
    "second",
    name="growth-second",
    population={"cohort_ids": [leads.id]},
    payload={"cohort_ids": [leads.id]},
    preview=True,
)

# audience-identified-delivery-allowed-destinations and audience-no-imputed-identified.
audience.Target(
    "export",
    name="growth-export",
    scope_id=pipeline.id,
    representation={"mode": "identified", "impute_payload": ["attributes"]},
    options={"type": "hosted_csv"},
)

# audience-no-deprecated.
audience.Cohort("buyers", name="growth-buyers", stream_name="orders", place_conditions=[{"place_id": "hq"}])
