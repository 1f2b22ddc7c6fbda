// Command sdkgen writes the SDK of one language from a provider schema with Pulumi's own code generators, the code
// `pulumi package gen-sdk` runs inside each current language host. The hosts built here predate that RPC, so this
// calls the generators of the CLI's pinned pkg/v3 directly, as those hosts do.
//
//	sdkgen <schema.json> <nodejs|python|go> <out folder>
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	nodejsgen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	pythongen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// noPackages loads no other package: the schema refers to none, and a reference to one is an error.
type noPackages struct{}

func (noPackages) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("the schema refers to package %q; sdkgen loads no other package", name)
}

func (l noPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.LoadPackage(d.Name, nil)
}

func (l noPackages) LoadPackageReference(name string, v *semver.Version) (schema.PackageReference, error) {
	_, err := l.LoadPackage(name, v)
	return nil, err
}

func (l noPackages) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return l.LoadPackageReference(d.Name, nil)
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: sdkgen <schema.json> <nodejs|python|go> <out folder>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintf(os.Stderr, "sdkgen: %v\n", err)
		os.Exit(1)
	}
}

func run(schemaPath, language, out string) error {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	if err != nil {
		return err
	}
	if diags.HasErrors() {
		return diags
	}
	var files map[string][]byte
	switch language {
	case "nodejs":
		files, err = nodejsgen.GeneratePackage("pulumi-language-nodejs", pkg, nil, nil, false, noPackages{})
	case "python":
		files, err = pythongen.GeneratePackage("pulumi-language-python", pkg, nil, noPackages{})
	case "go":
		files, err = gogen.GeneratePackage("pulumi-language-go", pkg, nil)
	default:
		return fmt.Errorf("language %q: one of nodejs, python, go", language)
	}
	if err != nil {
		return err
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	for name, data := range files {
		path := filepath.Join(out, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
