// The adaptive-discounting pipeline with the audience provider plugin, in Go with the generated SDK.
//
// Run once with the default config (a preview build), check the file, then
// `pulumi config set enabled true && pulumi up` to enable the pipeline. README.md says how to get the SDK.
package main

import (
	"github.com/pulumi-audience/pulumi-audience/sdk/go/audience"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		enabled := cfg.GetBool("enabled")

		// The schema's getCohort and getForecast: Go's generator names them Lookup*, as a resource Cohort exists.
		leads := audience.LookupCohortOutput(ctx, audience.LookupCohortOutputArgs{Name: pulumi.String("Leads")})
		forecastedSpend := audience.LookupForecastOutput(ctx, audience.LookupForecastOutputArgs{Name: pulumi.String("Forecasted spend")})

		scope, err := audience.NewScope(ctx, "adaptive-discounting", &audience.ScopeArgs{
			Name:       pulumi.String("Adaptive discounting"),
			Population: &audience.ScopePopulationArgs{CohortIds: pulumi.StringArray{leads.Id()}},
			Payload:    &audience.ScopePayloadArgs{ForecastIds: pulumi.StringArray{forecastedSpend.Id()}},
			Preview:    pulumi.Bool(!enabled),
			WaitFor:    audience.WaitForReady,
		},
			// The wait for the build honours Pulumi's timeouts (and Ctrl-C cancels it).
			pulumi.Timeouts(&pulumi.CustomTimeouts{Create: "30m", Update: "30m"}))
		if err != nil {
			return err
		}

		csv, err := audience.NewTarget(ctx, "adaptive-discounting-csv", &audience.TargetArgs{
			Name:           pulumi.String("Adaptive discounting (hosted CSV)"),
			ScopeId:        scope.ID(),
			Representation: &audience.TargetRepresentationArgs{Mode: audience.TargetRepresentationModeIdentified},
			Options:        &audience.TargetOptionsArgs{Type: audience.TargetOptionsTypeHostedCsv},
		})
		if err != nil {
			return err
		}

		// A warehouse connection: its password is secret config, and stays secret in state.
		warehouseHost := cfg.Get("warehouseHost")
		if warehouseHost == "" {
			warehouseHost = "warehouse.example.com"
		}
		warehouse, err := audience.NewConnection(ctx, "warehouse", &audience.ConnectionArgs{
			Name: pulumi.String("Analytics warehouse"),
			Options: &audience.ConnectionOptionsArgs{
				Type:     audience.ConnectionOptionsTypePostgres,
				Host:     pulumi.String(warehouseHost),
				Port:     pulumi.Int(5432),
				Database: pulumi.String("analytics"),
				Schema:   pulumi.String("audience"),
				User:     pulumi.String("audience_delivery"),
				Password: cfg.RequireSecret("warehousePassword"),
			},
		})
		if err != nil {
			return err
		}

		// A second account, the Pulumi way: an explicit provider passed to that account's resources.
		if cfg.Get("northApiKey") != "" {
			north, err := audience.NewProvider(ctx, "north", &audience.ProviderArgs{
				ApiKey:  cfg.RequireSecret("northApiKey"),
				BaseUrl: pulumi.String(cfg.Require("northBaseUrl")),
			})
			if err != nil {
				return err
			}
			if _, err := audience.NewCohort(ctx, "north-leads", &audience.CohortArgs{
				Name:       pulumi.String("North leads"),
				StreamName: pulumi.String("transactions"),
				// Gte is Go's name of the schema's `$gte` (the service's `_gte`).
				StreamConditions: audience.CohortStreamConditionsArray{
					&audience.CohortStreamConditionsArgs{Property: pulumi.String("amount"), Gte: pulumi.Float64(100)},
				},
			}, pulumi.Provider(north)); err != nil {
				return err
			}
		}

		// An existing resource is adopted with Pulumi's own import:
		//   pulumi import audience:index:Target legacy-csv <target id>
		// which reads it by id and prints the Go code that declares it.

		ctx.Export("scopeId", scope.ID())
		ctx.Export("csvUrl", csv.OutputUrl)
		ctx.Export("connectionId", warehouse.ID())
		return nil
	})
}
