// The adaptive-discounting pipeline with the audience provider plugin, in Java with the generated SDK.
//
// Run once with the default config (a preview build), check the file, then
// `pulumi config set enabled true && pulumi up` to enable the pipeline. README.md says how to get the SDK.
package adaptivediscounting;

import com.pulumi.Context;
import com.pulumi.Pulumi;
import com.pulumi.resources.CustomResourceOptions;
import com.pulumi.resources.CustomTimeouts;
import com.pulumiaudience.audience.AudienceFunctions;
import com.pulumiaudience.audience.Cohort;
import com.pulumiaudience.audience.CohortArgs;
import com.pulumiaudience.audience.Connection;
import com.pulumiaudience.audience.ConnectionArgs;
import com.pulumiaudience.audience.Provider;
import com.pulumiaudience.audience.ProviderArgs;
import com.pulumiaudience.audience.Scope;
import com.pulumiaudience.audience.ScopeArgs;
import com.pulumiaudience.audience.Target;
import com.pulumiaudience.audience.TargetArgs;
import com.pulumiaudience.audience.enums.ConnectionOptionsType;
import com.pulumiaudience.audience.enums.TargetOptionsType;
import com.pulumiaudience.audience.enums.TargetRepresentationMode;
import com.pulumiaudience.audience.enums.WaitFor;
import com.pulumiaudience.audience.inputs.CohortStreamConditionsArgs;
import com.pulumiaudience.audience.inputs.ConnectionOptionsArgs;
import com.pulumiaudience.audience.inputs.GetCohortArgs;
import com.pulumiaudience.audience.inputs.GetForecastArgs;
import com.pulumiaudience.audience.inputs.ScopePayloadArgs;
import com.pulumiaudience.audience.inputs.ScopePopulationArgs;
import com.pulumiaudience.audience.inputs.TargetOptionsArgs;
import com.pulumiaudience.audience.inputs.TargetRepresentationArgs;
import java.time.Duration;
import java.util.List;

public class App {
    public static void main(String[] args) {
        Pulumi.run(App::stack);
    }

    static void stack(Context ctx) {
        var config = ctx.config();
        boolean enabled = config.getBoolean("enabled").orElse(false);

        var leads = AudienceFunctions.getCohort(GetCohortArgs.builder().name("Leads").build());
        var forecastedSpend = AudienceFunctions.getForecast(GetForecastArgs.builder().name("Forecasted spend").build());

        var scope = new Scope("adaptive-discounting", ScopeArgs.builder()
                .name("Adaptive discounting")
                .population(ScopePopulationArgs.builder().cohortIds(leads.applyValue(c -> List.of(c.id()))).build())
                .payload(ScopePayloadArgs.builder().forecastIds(forecastedSpend.applyValue(f -> List.of(f.id()))).build())
                .preview(!enabled)
                .waitFor(WaitFor.Ready)
                .build(),
                // The wait for the build honours Pulumi's timeouts (and Ctrl-C cancels it).
                CustomResourceOptions.builder()
                        .customTimeouts(CustomTimeouts.builder().create(Duration.ofMinutes(30)).update(Duration.ofMinutes(30)).build())
                        .build());

        var csv = new Target("adaptive-discounting-csv", TargetArgs.builder()
                .name("Adaptive discounting (hosted CSV)")
                .scopeId(scope.id())
                .representation(TargetRepresentationArgs.builder().mode(TargetRepresentationMode.Identified).build())
                .options(TargetOptionsArgs.builder().type(TargetOptionsType.HostedCsv).build())
                .build());

        // The warehouse the team delivers to; its password is secret config, and stays secret in the state.
        var warehouse = new Connection("warehouse", ConnectionArgs.builder()
                .name("Analytics warehouse")
                .options(ConnectionOptionsArgs.builder()
                        .type(ConnectionOptionsType.Postgres)
                        .host(config.get("warehouseHost").orElse("warehouse.example.com"))
                        .port(5432)
                        .database("analytics")
                        .schema("audience")
                        .user("audience_delivery")
                        .password(config.requireSecret("warehousePassword"))
                        .build())
                .build());

        // A second account, the Pulumi way: an explicit provider passed to that account's resources.
        if (config.get("northApiKey").isPresent()) {
            var north = new Provider("north", ProviderArgs.builder()
                    .apiKey(config.requireSecret("northApiKey"))
                    .baseUrl(config.require("northBaseUrl"))
                    .build());
            new Cohort("north-leads", CohortArgs.builder()
                    .name("North leads")
                    .streamName("transactions")
                    // Java keeps the schema's operator names: `$gte` is the service's `_gte`.
                    .streamConditions(CohortStreamConditionsArgs.builder().property("amount").$gte(100.0).build())
                    .build(),
                    CustomResourceOptions.builder().provider(north).build());
        }

        // An existing resource is adopted with Pulumi's own import:
        //   pulumi import audience:index:Target legacy-csv <target id>
        // which reads it by id and prints the Java code that declares it.

        ctx.export("scopeId", scope.id());
        ctx.export("csvUrl", csv.outputUrl());
        ctx.export("connectionId", warehouse.id());
    }
}
