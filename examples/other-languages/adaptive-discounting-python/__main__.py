"""The adaptive-discounting pipeline with the audience provider plugin, in Python.

People in the Leads cohort with their forecasted spend, delivered as a hosted CSV; a warehouse connection whose
password comes from secret config; and a second account managed through an explicit provider. Run once with the
default config (a preview build), check the file, then `pulumi config set enabled true && pulumi up` to enable the
pipeline. README.md says how to get the SDK and set the config.
"""

import pulumi
import pulumi_audience as audience

config = pulumi.Config()
enabled = config.get_bool("enabled") or False

leads = audience.get_cohort_output(name="Leads")
forecasted_spend = audience.get_forecast_output(name="Forecasted spend")

scope = audience.Scope(
    "adaptive-discounting",
    name="Adaptive discounting",
    population={"cohort_ids": [leads.id]},
    payload={"forecast_ids": [forecasted_spend.id]},
    preview=not enabled,
    wait_for="ready",
    # The wait for the build honours Pulumi's timeouts (and Ctrl-C cancels it).
    opts=pulumi.ResourceOptions(custom_timeouts=pulumi.CustomTimeouts(create="30m", update="30m")),
)

csv = audience.Target(
    "adaptive-discounting-csv",
    name="Adaptive discounting (hosted CSV)",
    scope_id=scope.id,
    representation={"mode": "identified"},
    options={"type": "hosted_csv"},
)

# The warehouse the discounts are later written to. The password is secret config: Pulumi keeps it encrypted in
# the stack's config and state, and the service answers it as `<secret>`.
warehouse = audience.Connection(
    "warehouse",
    name="Analytics warehouse",
    options={
        "type": "postgres",
        "host": config.get("warehouseHost") or "warehouse.example.com",
        "port": 5432,
        "database": "analytics",
        "schema": "audience",
        "user": "audience_delivery",
        "password": config.require_secret("warehousePassword"),
    },
)

# A second account, the Pulumi way: an explicit provider passed to that account's resources.
north = audience.Provider("north", api_key=config.require_secret("northApiKey"), base_url=config.require("northBaseUrl"))
north_leads = audience.Cohort(
    "north-leads",
    name="North leads",
    stream_name="transactions",
    # `_gte` is Python's name of the schema's `$gte` (the service's `_gte`).
    stream_conditions=[{"property": "amount", "_gte": 100}],
    opts=pulumi.ResourceOptions(provider=north),
)

# An existing resource is adopted with Pulumi's own import:
#   pulumi import audience:index:Target legacy-csv <target id>
# which reads it by id and prints the code that declares it, to add below.

pulumi.export("scopeId", scope.id)
pulumi.export("csvUrl", csv.output_url)
pulumi.export("warehouseId", warehouse.id)
pulumi.export("northLeadsId", north_leads.id)
