//go:build mage

// The site's build, as the mage documentation writes magefiles.
package main

import (
	"context"
	"fmt"
	"time"

	"github.com/magefile/mage/mg"
	"github.com/magefile/mage/sh"
)

// Default target to run when none is specified.
var Default = Build

var Aliases = map[string]interface{}{
	"b":   Build,
	"pdf": Docs.PDF,
}

// Build compiles the site. It generates the pages first.
func Build() error {
	mg.Deps(Generate)
	return sh.Run("hugo")
}

// Generate writes the pages from the data files.
func Generate(ctx context.Context) error {
	return nil
}

// Deploy uploads the site to an environment.
func Deploy(ctx context.Context, env string, retries int, timeout time.Duration, dryRun *bool) error {
	fmt.Println(env, retries, timeout, dryRun)
	return nil
}

// A helper, not a target: unexported.
func clean() {}

// Version returns a value, so mage does not make it a target.
func Version() string { return "1.0" }

type Docs mg.Namespace

// Builds the documentation site.
func (Docs) Site() error { return nil }

// PDF renders the manual.
func (Docs) PDF() {}
