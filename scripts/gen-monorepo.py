#!/usr/bin/env python3
"""Generate a large, realistic, deterministic monorepo for agg's benchmarks.

    scripts/gen-monorepo.py OUT_DIR [--seed N] [--quiet]

Writes OUT_DIR (a `git init`ed repository) holding, for the default seed:

* ~55,000 tracked files: TypeScript/TSX sources, tests, Go and Rust sources, docs, configs;
* ~2,000 package.json (apps/* and packages/<group>/*) with realistic scripts, under a
  pnpm workspace (root pnpm-workspace.yaml + pnpm-lock.yaml); half of them depend on another
  package through `workspace:*` (a package on one made before it, so they form a DAG of
  leaves, middles and roots); a few packages declare their own `packageManager` (yarn, bun,
  npm) or carry their own lockfile;
* hundreds of Makefiles (`## ` descriptions, `include ../../build/common.mk`, variables,
  pattern rules), justfiles (`import`, `mod`) and Taskfiles (`includes:`);
* README.md everywhere: a few with an xc `## Tasks` section, most without;
* a few `.cargo/config.toml` with `[alias]`;
* Python services whose pyproject.toml holds poe tasks, pdm scripts, hatch scripts or console
  scripts (a quarter each), a third of them with a tox.ini and a third with a noxfile.py;
* in fixed proportions of the services: pom.xml, build.gradle.kts, deno.json, composer.json,
  mise.toml (some with .mise/tasks file tasks), compose.yaml, CMakePresets.json,
  .vscode/tasks.json, nx project.json, and an executable scripts/deploy.sh in each;
* a `.gitignore` that ignores `node_modules/` and `dist/` (and a few caches), and 20,000
  gitignored files under node_modules/ (root pnpm store plus per-app node_modules), among
  them package.json files with scripts, and gitignored dist/ folders with package.json
  files: none of these may ever be listed.

Also writes OUT_DIR-make500/ (one Makefile with 500 described targets, `git init`ed too) and
OUT_DIR-counts.json (what was generated, declared task counts per format).

Same seed, same bytes: no timestamps, no dict-order or hash-seed dependence.
Refuses to overwrite a non-empty OUT_DIR it did not generate itself.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time

MARKER = ".agg-bench-monorepo"

# --------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------

WORDS = (
    "account auth billing cart catalog checkout config core dashboard data design docs "
    "email events feature flags forms gateway graph health i18n identity inventory invoice "
    "jobs ledger logger maps media metrics notify orders pay pricing profile queue rates "
    "report search session shipping sms storage stream sync tax tenant theme tokens tracing "
    "upload users vault webhooks workflow"
).split()
GROUPS = [
    "ui", "core", "utils", "config", "sdk", "plugins", "features", "data", "infra", "tooling",
    "integrations", "design-system", "domain", "platform", "testing", "adapters",
]
LANGS = ["go", "go", "go", "python", "rust", "node"]
DEPS = [
    ("react", "18.3.1"), ("react-dom", "18.3.1"), ("zod", "3.23.8"), ("lodash-es", "4.17.21"),
    ("date-fns", "3.6.0"), ("clsx", "2.1.1"), ("axios", "1.7.2"), ("express", "4.19.2"),
    ("@tanstack/react-query", "5.45.1"), ("zustand", "4.5.2"), ("pino", "9.2.0"),
    ("graphql", "16.9.0"), ("uuid", "10.0.0"), ("nanoid", "5.0.7"), ("immer", "10.1.1"),
    ("yaml", "2.4.5"), ("chalk", "5.3.0"), ("commander", "12.1.0"), ("dotenv", "16.4.5"),
    ("ioredis", "5.4.1"), ("pg", "8.12.0"), ("prisma", "5.16.1"), ("next", "14.2.4"),
]
DEV_DEPS = [
    ("typescript", "5.5.2"), ("vitest", "1.6.0"), ("tsup", "8.1.0"), ("eslint", "8.57.0"),
    ("prettier", "3.3.2"), ("rimraf", "5.0.7"), ("@types/node", "20.14.9"),
    ("@testing-library/react", "16.0.0"), ("storybook", "8.1.10"), ("vite", "5.3.1"),
    ("playwright", "1.45.0"), ("tsx", "4.16.0"), ("jest", "29.7.0"), ("concurrently", "8.2.2"),
]


class Gen:
    def __init__(self, out, seed):
        self.out = out
        self.rng = random.Random(seed)
        # Which package a `workspace:*` dependency names is drawn from a second stream, so
        # that every other byte stays what the first stream made it.
        self.dep_rng = random.Random(seed * 7919 + 1)
        self.libs = []  # names of the packages under packages/, in the order they were made
        self.workspace_deps = []  # (package.json path, its dict, the libs it may depend on)
        self.dirs = set()
        self.c = {
            "files_tracked": 0,
            "files_ignored": 0,
            "bytes": 0,
            "package_json": 0,
            "package_json_ignored": 0,
            "package_json_own_manager": 0,
            "makefiles": 0,
            "make_includes": 0,
            "justfiles": 0,
            "just_imported_files": 0,
            "taskfiles": 0,
            "taskfile_included_files": 0,
            "readmes": 0,
            "readmes_with_xc_tasks": 0,
            "cargo_configs": 0,
            "pyproject_poe": 0,
            "pyproject_pdm": 0,
            "pyproject_hatch": 0,
            "pyproject_uv": 0,
            "tox_ini": 0,
            "noxfiles": 0,
            "other_sources": {},
            "declared": {
                "package_json_scripts": 0,
                "package_json_hook_scripts": 0,
                "make_described_targets": 0,
                "just_recipes": 0,
                "taskfile_tasks": 0,
                "xc_tasks": 0,
                "cargo_aliases": 0,
                "poe_tasks": 0,
                "pdm_scripts": 0,
                "hatch_scripts": 0,
                "console_scripts": 0,
                "tox_envs": 0,
                "nox_sessions": 0,
            },
        }
        self.ignored = False  # while writing into a gitignored subtree

    # ---- file system -----------------------------------------------------------------

    def mkdir(self, d):
        if d in self.dirs:
            return
        os.makedirs(d, exist_ok=True)
        # Remember every ancestor too, so siblings never re-stat them.
        while d and d not in self.dirs:
            self.dirs.add(d)
            d = os.path.dirname(d)

    def write(self, rel, text):
        path = os.path.join(self.out, rel)
        self.mkdir(os.path.dirname(path))
        data = text.encode()
        with open(path, "wb") as f:
            f.write(data)
        self.c["bytes"] += len(data)
        if self.ignored:
            self.c["files_ignored"] += 1
        else:
            self.c["files_tracked"] += 1

    def link_workspace_deps(self):
        """Points every `workspace:*` dependency at a real package: a package at one made
        before it (so the packages form a DAG of leaves, middles and roots, as a real
        monorepo's do), an app at any package."""
        for rel, pkg, placeholder, made_before in self.workspace_deps:
            pool = self.libs[:made_before] if made_before else self.libs
            if not pool:
                continue
            target = self.dep_rng.choice(pool)
            deps = pkg["dependencies"]
            pkg["dependencies"] = {(target if k == placeholder else k): v for k, v in deps.items()}
            if pkg.get("name") == target:
                continue
            old = os.path.getsize(os.path.join(self.out, rel))
            data = (json.dumps(pkg, indent=2) + "\n").encode()
            with open(os.path.join(self.out, rel), "wb") as f:
                f.write(data)
            self.c["bytes"] += len(data) - old

    # ---- helpers -----------------------------------------------------------------------

    def words(self, n):
        return " ".join(self.rng.choice(WORDS) for _ in range(n))

    def sentence(self, n=10):
        s = self.words(n)
        return s[0].upper() + s[1:] + "."

    def ts_module(self, name, imports=()):
        r = self.rng
        lines = [f"import {{ {i} }} from './{i}';" for i in imports]
        lines.append("")
        lines.append(f"export interface {name.title().replace('-', '')}Options {{")
        for _ in range(r.randint(2, 6)):
            lines.append(f"  {r.choice(WORDS)}{r.randint(1, 9)}?: {r.choice(['string', 'number', 'boolean', 'string[]'])};")
        lines.append("}")
        lines.append("")
        fn = name.replace("-", "_")
        lines.append(f"/** {self.sentence(8)} */")
        lines.append(f"export function {fn}(input: string, opts: Partial<Record<string, unknown>> = {{}}): string {{")
        for _ in range(r.randint(3, 12)):
            lines.append(f"  const {r.choice(WORDS)}{r.randint(10, 99)} = input.length * {r.randint(1, 50)}; // {self.words(4)}")
        lines.append("  return `${input}:${Object.keys(opts).length}`;")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def ts_test(self, name):
        r = self.rng
        fn = name.replace("-", "_")
        cases = "\n".join(
            f"  it('{self.words(5)}', () => {{\n    expect({fn}('{r.choice(WORDS)}')).toContain(':');\n  }});"
            for _ in range(r.randint(2, 6))
        )
        return f"import {{ describe, it, expect }} from 'vitest';\nimport {{ {fn} }} from '../src/{name}';\n\ndescribe('{name}', () => {{\n{cases}\n}});\n"

    def tsx_component(self, name):
        r = self.rng
        comp = "".join(p.title() for p in name.split("-"))
        props = "\n".join(f"  {r.choice(WORDS)}{i}?: string;" for i in range(r.randint(1, 5)))
        return (
            "import React from 'react';\nimport clsx from 'clsx';\n\n"
            f"export interface {comp}Props {{\n{props}\n  className?: string;\n  children?: React.ReactNode;\n}}\n\n"
            f"/** {self.sentence(9)} */\n"
            f"export function {comp}({{ className, children }}: {comp}Props) {{\n"
            f"  return <div className={{clsx('{name}', className)}}>{{children}}</div>;\n}}\n"
        )

    def markdown_doc(self, title):
        r = self.rng
        parts = [f"# {title}\n", self.sentence(18), ""]
        for _ in range(r.randint(2, 5)):
            parts.append(f"## {self.words(2).title()}\n")
            parts.append(" ".join(self.sentence(r.randint(8, 16)) for _ in range(r.randint(2, 5))))
            parts.append("")
            if r.random() < 0.4:
                parts.append("```ts\n" + f"const x = {r.choice(WORDS)}();\n" + "```\n")
        return "\n".join(parts) + "\n"

    # ---- READMEs ---------------------------------------------------------------------

    def readme(self, rel_dir, title, xc_tasks=None, pm="pnpm"):
        r = self.rng
        parts = [f"# {title}\n", self.sentence(14), ""]
        parts.append("## Installation\n\n```sh\n" + f"{pm} install\n" + "```\n")
        parts.append("## Usage\n\n" + self.sentence(12) + "\n\n```ts\n" + f"import {{ init }} from '{title}';\ninit();\n" + "```\n")
        if r.random() < 0.3:
            # Prose that mentions tasks without being a tasks section.
            parts.append("## Background work\n\nLong-running tasks are handed to the queue worker; see docs/queue.md.\n")
        if xc_tasks:
            parts.append("## Tasks\n")
            for name, desc, cmd, req in xc_tasks:
                parts.append(f"### {name}\n\n{desc}\n")
                if req:
                    parts.append(f"Requires: {req}\n")
                parts.append("```sh\n" + cmd + "\n```\n")
            self.c["readmes_with_xc_tasks"] += 1
            self.c["declared"]["xc_tasks"] += len(xc_tasks)
        parts.append("## License\n\nMIT\n")
        self.write(os.path.join(rel_dir, "README.md"), "\n".join(parts))
        self.c["readmes"] += 1

    # ---- package.json ------------------------------------------------------------------

    def scripts_for(self, kind, name):
        r = self.rng
        s = {}
        if kind == "next-app":
            s.update({
                "dev": "next dev --port 3000",
                "build": "next build",
                "start": "next start",
                "lint": "next lint --max-warnings 0",
                "typecheck": "tsc --noEmit",
                "test": "vitest run",
                "test:watch": "vitest",
                "e2e": "playwright test",
                "clean": "rimraf .next dist .turbo",
            })
        elif kind == "vite-app":
            s.update({
                "dev": "vite",
                "build": "tsc -b && vite build",
                "preview": "vite preview",
                "lint": "eslint . --ext ts,tsx --report-unused-disable-directives --max-warnings 0",
                "test": "vitest run --coverage",
                "storybook": "storybook dev -p 6006",
                "build-storybook": "storybook build",
            })
        elif kind == "service":
            s.update({
                "dev": "tsx watch src/server.ts",
                "build": "tsup src/server.ts --format esm --sourcemap",
                "start": "node dist/server.js",
                "test": "vitest run",
                "lint": "eslint src --max-warnings 0",
                "db:migrate": "prisma migrate deploy",
                "db:generate": "prisma generate",
                "postinstall": "prisma generate",
            })
        elif kind == "config":
            s.update({"lint": "eslint .", "format": "prettier --check ."})
        elif kind == "cli":
            s.update({
                "build": "tsup src/cli.ts --format esm --dts --clean",
                "dev": "tsup src/cli.ts --watch",
                "test": "vitest run",
                "prepublishOnly": "pnpm run build",
                "release": "changeset publish",
            })
        else:  # library
            s.update({
                "build": "tsup src/index.ts --format esm,cjs --dts",
                "dev": "tsup src/index.ts --format esm,cjs --dts --watch",
                "test": "vitest run",
                "test:watch": "vitest",
                "lint": "eslint src --max-warnings 0",
                "typecheck": "tsc --noEmit",
                "clean": "rimraf dist .turbo coverage",
            })
            if r.random() < 0.3:
                s["prebuild"] = "pnpm run clean"
            if r.random() < 0.2:
                s["posttest"] = "node ../../../tooling/scripts/coverage-report.mjs"
            if r.random() < 0.25:
                s["format"] = "prettier --write src"
            if r.random() < 0.1:
                s[f"gen:{r.choice(WORDS)}"] = f"tsx scripts/generate-{r.choice(WORDS)}.ts"
        return s

    def package_json(self, rel_dir, name, kind, own_manager=None, private=True):
        r = self.rng
        scripts = self.scripts_for(kind, name)
        pkg = {"name": name, "version": f"{r.randint(0, 3)}.{r.randint(0, 20)}.{r.randint(0, 9)}"}
        if private:
            pkg["private"] = True
        pkg["type"] = "module"
        if own_manager:
            pkg["packageManager"] = own_manager
        if kind in ("library", "cli"):
            pkg["main"] = "./dist/index.cjs"
            pkg["module"] = "./dist/index.js"
            pkg["types"] = "./dist/index.d.ts"
            pkg["exports"] = {".": {"types": "./dist/index.d.ts", "import": "./dist/index.js", "require": "./dist/index.cjs"}}
            pkg["files"] = ["dist"]
        pkg["scripts"] = scripts
        if r.random() < 0.08:
            pkg["scripts-info"] = {k: self.sentence(5) for k in list(scripts)[:3]}
        deps = r.sample(DEPS, r.randint(1, 6))
        pkg["dependencies"] = {d: f"^{v}" for d, v in sorted(deps)}
        if r.random() < 0.5:
            placeholder = f"@acme/{r.choice(WORDS)}-{r.choice(['core', 'utils', 'sdk'])}"
            pkg["dependencies"][placeholder] = "workspace:*"
            if not self.ignored:
                self.workspace_deps.append((os.path.join(rel_dir, "package.json"), pkg, placeholder, len(self.libs)))
        dev = r.sample(DEV_DEPS, r.randint(2, 6))
        pkg["devDependencies"] = {d: f"^{v}" for d, v in sorted(dev)}
        self.write(os.path.join(rel_dir, "package.json"), json.dumps(pkg, indent=2) + "\n")
        if self.ignored:
            self.c["package_json_ignored"] += 1
            return pkg
        self.c["package_json"] += 1
        if own_manager:
            self.c["package_json_own_manager"] += 1
        hooks = [k for k in scripts if any(k.startswith(p) and k[len(p):] in scripts for p in ("pre", "post"))]
        self.c["declared"]["package_json_scripts"] += len(scripts) - len(hooks)
        self.c["declared"]["package_json_hook_scripts"] += len(hooks)
        return pkg

    # ---- Make / just / Taskfile ----------------------------------------------------------

    def common_files(self):
        self.write("build/common.mk", COMMON_MK)
        self.write("build/common.just", COMMON_JUST)
        self.write("build/taskfiles/Docker.yml", DOCKER_TASKS)
        self.write("build/taskfiles/Go.yml", GO_TASKS)
        self.write("build/README.md", "# build\n\nShared build rules: common.mk, common.just and taskfiles/.\n")
        self.c["readmes"] += 1

    def service_makefile(self, rel_dir, svc, lang):
        r = self.rng
        described = 0
        lines = [
            f"# {svc}: {lang} service. `make help` lists the targets.",
            f"SERVICE := {svc}",
            "include ../../build/common.mk",
            "",
        ]
        if lang == "go":
            lines += [
                "GO ?= go",
                "GOFLAGS ?= -trimpath",
                "LDFLAGS := -s -w -X main.version=$(VERSION)",
                "BIN_DIR := bin",
                "SRCS := $(shell find . -name '*.go' -not -path './vendor/*')",
                "PROTOS := $(wildcard proto/*.proto)",
                "",
                ".PHONY: all build test lint run generate migrate-up migrate-down clean",
                "",
                "all: build ## Build everything (default)",
                "",
                "build: $(BIN_DIR)/$(SERVICE) ## Build the service binary",
                "",
                "$(BIN_DIR)/$(SERVICE): $(SRCS)",
                "\t$(GO) build $(GOFLAGS) -ldflags '$(LDFLAGS)' -o $@ ./cmd/$(SERVICE)",
                "",
                "test: ## Run the unit tests with the race detector",
                "\t$(GO) test -race -count=1 ./...",
                "",
                "lint: ## Run golangci-lint",
                "\tgolangci-lint run ./...",
                "",
                "run: build ## Run the service locally",
                "\t./$(BIN_DIR)/$(SERVICE) --config config/local.yaml",
                "",
                "generate: $(PROTOS:.proto=.pb.go) ## Regenerate protobuf code",
                "",
                "%.pb.go: %.proto",
                "\tprotoc --go_out=. --go_opt=paths=source_relative $<",
                "",
                "migrate-up: ## Apply database migrations",
                "\tmigrate -path db/migrations -database \"$$DATABASE_URL\" up",
                "",
                "migrate-down:",
                "\tmigrate -path db/migrations -database \"$$DATABASE_URL\" down 1",
                "",
                "clean: ## Remove build output",
                "\trm -rf $(BIN_DIR) coverage.out",
            ]
            described += 8
        elif lang == "python":
            lines += [
                "PYTHON ?= python3",
                "VENV := .venv",
                "",
                ".PHONY: venv test lint fmt run clean",
                "",
                "venv: $(VENV)/bin/activate ## Create the virtualenv",
                "",
                "$(VENV)/bin/activate: requirements.txt",
                "\t$(PYTHON) -m venv $(VENV) && $(VENV)/bin/pip install -r requirements.txt",
                "",
                "test: venv ## Run pytest",
                "\t$(VENV)/bin/pytest -q",
                "",
                "lint: ## Ruff and mypy",
                "\t$(VENV)/bin/ruff check . && $(VENV)/bin/mypy src",
                "",
                "fmt:",
                "\t$(VENV)/bin/ruff format .",
                "",
                "run: venv ## Run the service",
                "\t$(VENV)/bin/python -m $(SERVICE)",
                "",
                "clean: ## Remove caches",
                "\trm -rf $(VENV) .pytest_cache .mypy_cache",
            ]
            described += 5
        else:
            lines += [
                "CARGO ?= cargo",
                "PROFILE ?= release",
                "",
                ".PHONY: build test lint run clean",
                "",
                "build: ## Build the crate",
                "\t$(CARGO) build --profile $(PROFILE)",
                "",
                "test: ## Run the tests",
                "\t$(CARGO) test --all-features",
                "",
                "lint: ## Clippy with warnings denied",
                "\t$(CARGO) clippy --all-targets -- -D warnings",
                "",
                "run: build",
                "\t$(CARGO) run --profile $(PROFILE)",
                "",
                "%.json: %.yaml",
                "\tyq -o json $< > $@",
                "",
                "clean: ## cargo clean",
                "\t$(CARGO) clean",
            ]
            described += 4
        for i in range(r.randint(0, 6)):
            t = f"{r.choice(WORDS)}-{r.choice(['check', 'sync', 'seed', 'report', 'bench'])}{i}"
            lines += ["", f"{t}: ## {self.sentence(5)}", f"\t@./scripts/{t}.sh"]
            described += 1
        self.write(os.path.join(rel_dir, "Makefile"), "\n".join(lines) + "\n")
        self.c["makefiles"] += 1
        self.c["make_includes"] += 1
        self.c["declared"]["make_described_targets"] += described

    def service_justfile(self, rel_dir, svc, lang, with_mod):
        r = self.rng
        recipes = 0
        lines = [
            f"# {svc} recipes (`just --list`)",
            "set dotenv-load",
            "",
            "import '../../build/common.just'",
        ]
        if with_mod:
            lines.append("mod db 'just/db.just'")
        lines += ["", f'service := "{svc}"', f'port := "{r.randint(3000, 9999)}"', ""]
        body = {
            "go": [("run *args", "Run the service locally", "go run ./cmd/{{service}} {{args}}"),
                   ("test pkg='./...'", "Run the tests", "go test -race {{pkg}}"),
                   ("bench", "Run the benchmarks", "go test -run=^$ -bench=. ./...")],
            "python": [("run", "Run the service", "python -m {{service}} --port {{port}}"),
                       ("test *args", "Run pytest", "pytest -q {{args}}"),
                       ("lint", "Ruff and mypy", "ruff check . && mypy src")],
            "rust": [("run *args", "Run the binary", "cargo run -- {{args}}"),
                     ("test", "Run the tests", "cargo test"),
                     ("doc", "Build the docs", "cargo doc --no-deps")],
            "node": [("dev", "Start the dev server", "pnpm run dev"),
                     ("test", "Run the tests", "pnpm run test"),
                     ("seed", "Seed the local database", "pnpm tsx scripts/seed.ts")],
        }[lang]
        for sig, doc, cmd in body:
            lines += [f"# {doc}", f"{sig}:", f"    {cmd}", ""]
            recipes += 1
        lines += ["# Deploy to an environment", "[group('ops')]", "deploy env='staging':",
                  "    ./scripts/deploy.sh {{service}} {{env}}", "", "alias t := test", "",
                  "_ensure-env:", "    @test -f .env || cp .env.example .env", ""]
        recipes += 2
        for i in range(r.randint(0, 4)):
            lines += [f"# {self.sentence(4)}", f"{r.choice(WORDS)}-task{i}:", f"    @echo {r.choice(WORDS)}", ""]
            recipes += 1
        self.write(os.path.join(rel_dir, "justfile"), "\n".join(lines))
        self.c["justfiles"] += 1
        self.c["declared"]["just_recipes"] += recipes
        if with_mod:
            self.write(os.path.join(rel_dir, "just/db.just"),
                       "# Apply migrations\nmigrate:\n    migrate up\n\n# Reset the local database\nreset:\n    dropdb app && createdb app\n")
            self.c["just_imported_files"] += 1

    def service_taskfile(self, rel_dir, svc, lang, with_local_include):
        r = self.rng
        tasks = 0
        lines = ["version: '3'", "", "vars:", f"  SERVICE: {svc}", "  IMAGE: ghcr.io/acme/{{.SERVICE}}", "",
                 "includes:", "  docker: ../../build/taskfiles/Docker.yml"]
        if lang == "go":
            lines.append("  go: ../../build/taskfiles/Go.yml")
        if with_local_include:
            lines += ["  ci:", "    taskfile: ./taskfiles/ci.yml", "    dir: ."]
        lines += ["", "tasks:", "  default:", "    cmds:", "      - task --list", ""]
        tasks += 1
        for name, desc, cmd in [("up", "Start the local stack", "docker compose up -d"),
                                ("down", "Stop the local stack", "docker compose down"),
                                ("logs", "Follow the service logs", "docker compose logs -f {{.SERVICE}}")]:
            lines += [f"  {name}:", f"    desc: {desc}", "    cmds:", f"      - {cmd}", ""]
            tasks += 1
        for i in range(r.randint(0, 5)):
            lines += [f"  {r.choice(WORDS)}-{i}:", f"    desc: {self.sentence(5)}", "    deps: [up]",
                      "    cmds:", f"      - ./scripts/{r.choice(WORDS)}.sh", ""]
            tasks += 1
        lines += ["  internal-helper:", "    internal: true", "    cmds:", "      - echo helper", ""]
        self.write(os.path.join(rel_dir, "Taskfile.yml"), "\n".join(lines))
        self.c["taskfiles"] += 1
        self.c["declared"]["taskfile_tasks"] += tasks
        if with_local_include:
            self.write(os.path.join(rel_dir, "taskfiles/ci.yml"),
                       "version: '3'\n\ntasks:\n  check:\n    desc: Everything CI runs\n    cmds:\n      - task: lint\n      - task: test\n  lint:\n    cmds:\n      - echo lint\n  test:\n    cmds:\n      - echo test\n")
            self.c["taskfile_included_files"] += 1

    # ---- the tree ------------------------------------------------------------------------

    def root_files(self, n_apps, groups):
        self.write(MARKER, "generated by scripts/gen-monorepo.py; safe to delete\n")
        self.write(".gitignore", GITIGNORE)
        self.write(".editorconfig", "root = true\n\n[*]\nindent_style = space\nindent_size = 2\nend_of_line = lf\n")
        self.write(".prettierrc", json.dumps({"singleQuote": True, "semi": True, "printWidth": 100}, indent=2) + "\n")
        self.write(".eslintrc.json", json.dumps({"root": True, "extends": ["@acme/eslint-config"]}, indent=2) + "\n")
        self.write(".npmrc", "auto-install-peers=true\nstrict-peer-dependencies=false\n")
        self.write(".nvmrc", "20.14.0\n")
        for wf in ["ci", "release", "nightly", "codeql", "deploy-staging", "deploy-prod"]:
            self.write(f".github/workflows/{wf}.yml",
                       f"name: {wf}\non: [push]\njobs:\n  main:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: pnpm install --frozen-lockfile\n      - run: pnpm turbo run build test lint\n")
        self.write(".github/CODEOWNERS", "".join(f"/packages/{g}/ @acme/{g}-team\n" for g in groups))
        for i in range(120):
            self.write(f".changeset/{self.rng.choice(WORDS)}-{self.rng.choice(WORDS)}-{i}.md",
                       f"---\n'@acme/{self.rng.choice(WORDS)}': patch\n---\n\n{self.sentence(8)}\n")
        self.write("turbo.json", json.dumps({
            "$schema": "https://turbo.build/schema.json",
            "tasks": {"build": {"dependsOn": ["^build"], "outputs": ["dist/**", ".next/**"]},
                      "test": {"dependsOn": ["build"]}, "lint": {}, "dev": {"cache": False, "persistent": True}},
        }, indent=2) + "\n")
        self.write("tsconfig.base.json", json.dumps({"compilerOptions": {
            "target": "ES2022", "module": "ESNext", "moduleResolution": "Bundler", "strict": True,
            "declaration": True, "skipLibCheck": True, "jsx": "react-jsx"}}, indent=2) + "\n")
        self.write("pnpm-workspace.yaml", "packages:\n  - 'apps/*'\n  - 'packages/*/*'\n  - 'services/*'\n  - 'tooling/*'\n")
        root_pkg = {
            "name": "acme-monorepo", "private": True, "packageManager": "pnpm@9.4.0",
            "scripts": {
                "build": "turbo run build", "dev": "turbo run dev --parallel", "test": "turbo run test",
                "lint": "turbo run lint", "typecheck": "turbo run typecheck", "format": "prettier --write .",
                "clean": "turbo run clean && rimraf node_modules", "changeset": "changeset",
                "release": "turbo run build --filter=./packages/* && changeset publish",
                "prepare": "husky",
            },
            "devDependencies": {"turbo": "^2.0.4", "prettier": "^3.3.2", "husky": "^9.0.11", "@changesets/cli": "^2.27.5"},
        }
        self.write("package.json", json.dumps(root_pkg, indent=2) + "\n")
        self.c["package_json"] += 1
        self.c["declared"]["package_json_scripts"] += len(root_pkg["scripts"])
        self.write("Makefile", ROOT_MAKEFILE)
        self.c["makefiles"] += 1
        self.c["make_includes"] += 1
        self.c["declared"]["make_described_targets"] += 6
        self.write("justfile", "# Root recipes\nimport 'build/common.just'\nmod tools 'tooling/tools.just'\n\n# Bootstrap a fresh clone\nbootstrap:\n    pnpm install && make -C services/svc-000 build\n\n# Everything CI runs\nci: \n    pnpm turbo run build test lint\n")
        self.write("tooling/tools.just", "# Regenerate the API clients\ncodegen:\n    pnpm tsx tooling/codegen.ts\n\n# Check licenses\nlicenses:\n    pnpm licensee --production\n")
        self.c["justfiles"] += 1
        self.c["just_imported_files"] += 1
        self.c["declared"]["just_recipes"] += 4
        self.write("Taskfile.yml", "version: '3'\n\nincludes:\n  docker: ./build/taskfiles/Docker.yml\n\ntasks:\n  setup:\n    desc: Install every toolchain\n    cmds:\n      - pnpm install\n      - go mod download\n  release:\n    desc: Cut a release\n    cmds:\n      - pnpm changeset version\n")
        self.c["taskfiles"] += 1
        self.c["declared"]["taskfile_tasks"] += 2
        self.readme(".", "acme-monorepo", xc_tasks=[
            ("bootstrap", "Install dependencies and build the shared packages.", "pnpm install\npnpm turbo run build --filter=./packages/*", None),
            ("verify", "Run everything CI runs.", "pnpm turbo run build test lint", "bootstrap"),
            ("release-notes", "Print the pending changesets.", "ls .changeset", None),
        ])
        self.write(".cargo/config.toml", '[alias]\n# Run the xtask helper\nxtask = "run --package xtask --"\nci = ["clippy", "--workspace", "--", "-D", "warnings"]\n')
        self.c["cargo_configs"] += 1
        self.c["declared"]["cargo_aliases"] += 2
        self.write("CONTRIBUTING.md", self.markdown_doc("Contributing"))
        self.write("LICENSE", "MIT License\n\nCopyright (c) Acme\n")

    def app(self, i):
        r = self.rng
        name = f"{r.choice(WORDS)}-{r.choice(['web', 'admin', 'portal', 'console', 'site', 'mobile-web'])}-{i:03d}"
        d = f"apps/{name}"
        kind = "next-app" if i % 2 == 0 else "vite-app"
        own = None
        if i % 40 == 7:
            own = "yarn@4.3.1"
        elif i % 40 == 23:
            own = "bun@1.1.17"
        self.package_json(d, f"@acme/{name}", kind, own_manager=own)
        if i % 40 == 33:
            self.write(f"{d}/package-lock.json", json.dumps({"name": name, "lockfileVersion": 3, "requires": True, "packages": {}}, indent=2) + "\n")
        self.write(f"{d}/tsconfig.json", json.dumps({"extends": "../../tsconfig.base.json", "include": ["src"]}, indent=2) + "\n")
        self.write(f"{d}/.env.example", "DATABASE_URL=postgres://localhost/app\nAPI_URL=http://localhost:8080\n")
        if kind == "next-app":
            self.write(f"{d}/next.config.mjs", "/** @type {import('next').NextConfig} */\nexport default { reactStrictMode: true };\n")
        else:
            self.write(f"{d}/vite.config.ts", "import { defineConfig } from 'vite';\nimport react from '@vitejs/plugin-react';\n\nexport default defineConfig({ plugins: [react()] });\n")
            self.write(f"{d}/index.html", f"<!doctype html>\n<html><head><title>{name}</title></head><body><div id=\"root\"></div><script type=\"module\" src=\"/src/main.tsx\"></script></body></html>\n")
        for j in range(r.randint(14, 26)):
            comp = f"{r.choice(WORDS)}-{r.choice(['card', 'list', 'form', 'page', 'modal', 'table', 'header'])}"
            self.write(f"{d}/src/components/{comp}-{j}.tsx", self.tsx_component(comp))
        for j in range(r.randint(4, 10)):
            mod = f"{r.choice(WORDS)}-{j}"
            self.write(f"{d}/src/lib/{mod}.ts", self.ts_module(mod))
            self.write(f"{d}/test/{mod}.test.ts", self.ts_test(mod))
        self.write(f"{d}/public/robots.txt", "User-agent: *\nAllow: /\n")
        self.readme(d, name, xc_tasks=self.maybe_xc(i, "pnpm"))
        # Build output: gitignored, with a package.json whose scripts must not be listed.
        if i % 3 == 0:
            self.ignored = True
            for j in range(6):
                self.write(f"{d}/dist/assets/chunk-{j}.js", f"export const c{j}=()=>{j};\n")
            self.package_json(f"{d}/dist", f"@acme/{name}-dist", "library")
            self.ignored = False

    def maybe_xc(self, i, pm):
        if i % 20 != 3:
            return None
        return [
            ("build", "Build the package.", f"{pm} run build", None),
            ("test", "Run the tests once.", f"{pm} run test", "build"),
            ("storybook", "Start Storybook on port 6006.", f"{pm} run storybook", None),
        ]

    def package(self, i, group):
        r = self.rng
        base = f"{r.choice(WORDS)}-{r.choice(['core', 'utils', 'client', 'hooks', 'schema', 'adapter', 'react', 'node'])}"
        name = f"{base}-{i:04d}"
        d = f"packages/{group}/{name}"
        kind = "library"
        if i % 23 == 0:
            kind = "cli"
        elif i % 31 == 0:
            kind = "config"
        own = None
        if i % 97 == 11:
            own = "yarn@4.3.1"
        elif i % 97 == 53:
            own = "bun@1.1.17"
        elif i % 97 == 71:
            own = "npm@10.8.1"
        self.package_json(d, f"@acme/{name}", kind, own_manager=own)
        self.libs.append(f"@acme/{name}")
        if i % 211 == 5:
            self.write(f"{d}/yarn.lock", "# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.\n# yarn lockfile v1\n\n")
        if i % 211 == 77:
            self.write(f"{d}/bun.lock", '{\n  "lockfileVersion": 0,\n  "workspaces": {}\n}\n')
        self.write(f"{d}/tsconfig.json", json.dumps({"extends": "../../../tsconfig.base.json", "compilerOptions": {"outDir": "dist"}, "include": ["src"]}, indent=2) + "\n")
        if kind != "config":
            self.write(f"{d}/tsup.config.ts", "import { defineConfig } from 'tsup';\n\nexport default defineConfig({ entry: ['src/index.ts'], dts: true });\n")
            self.write(f"{d}/vitest.config.ts", "import { defineConfig } from 'vitest/config';\n\nexport default defineConfig({ test: { environment: 'node' } });\n")
        mods = [f"{r.choice(WORDS)}-{j}" for j in range(r.randint(5, 11))]
        self.write(f"{d}/src/index.ts", "".join(f"export * from './{m}';\n" for m in mods))
        for m in mods:
            self.write(f"{d}/src/{m}.ts", self.ts_module(m))
        for m in mods[: r.randint(2, len(mods))]:
            self.write(f"{d}/test/{m}.test.ts", self.ts_test(m))
        if group in ("ui", "design-system"):
            for j in range(r.randint(2, 5)):
                comp = f"{r.choice(WORDS)}-{r.choice(['button', 'badge', 'input', 'menu'])}"
                self.write(f"{d}/src/{comp}-{j}.tsx", self.tsx_component(comp))
                self.write(f"{d}/src/{comp}-{j}.stories.tsx", f"import {{ {''.join(p.title() for p in comp.split('-'))} }} from './{comp}-{j}';\n\nexport default {{ title: '{comp}' }};\nexport const Default = {{}};\n")
        self.write(f"{d}/CHANGELOG.md", f"# @acme/{name}\n\n## 0.{r.randint(1, 9)}.0\n\n- {self.sentence(8)}\n")
        self.readme(d, f"@acme/{name}", xc_tasks=self.maybe_xc(i, "pnpm"))
        if i % 19 == 4:
            # Native addon packages drive a Makefile.
            self.write(f"{d}/Makefile", PKG_MAKEFILE.format(name=name))
            self.c["makefiles"] += 1
            self.c["make_includes"] += 1
            self.c["declared"]["make_described_targets"] += 3
        if i % 9 == 2:
            self.ignored = True
            self.write(f"{d}/dist/index.js", "export {};\n")
            self.write(f"{d}/dist/index.d.ts", "export {};\n")
            self.ignored = False

    def service(self, i):
        r = self.rng
        lang = LANGS[i % len(LANGS)]
        svc = f"svc-{i:03d}"
        d = f"services/{svc}"
        self.service_makefile(d, svc, lang)
        if i % 3 != 0:
            self.service_justfile(d, svc, lang, with_mod=(i % 7 == 1))
        if i % 3 != 1:
            self.service_taskfile(d, svc, lang, with_local_include=(i % 5 == 2))
        if lang == "go":
            self.write(f"{d}/go.mod", f"module github.com/acme/monorepo/services/{svc}\n\ngo 1.22\n\nrequire (\n\tgithub.com/go-chi/chi/v5 v5.0.12\n\tgithub.com/jackc/pgx/v5 v5.6.0\n)\n")
            self.write(f"{d}/go.sum", "".join(f"github.com/acme/dep{j} v1.{j}.0 h1:{'x' * 43}=\n" for j in range(20)))
            self.write(f"{d}/cmd/{svc}/main.go", GO_MAIN)
            for j in range(r.randint(10, 20)):
                pkg = r.choice(WORDS)
                self.write(f"{d}/internal/{pkg}{j}/{pkg}.go", GO_FILE.format(pkg=f"{pkg}{j}", fn=pkg.title(), n=j))
                if j % 2 == 0:
                    self.write(f"{d}/internal/{pkg}{j}/{pkg}_test.go", GO_TEST.format(pkg=f"{pkg}{j}", fn=pkg.title()))
            self.write(f"{d}/proto/{svc}.proto", f'syntax = "proto3";\npackage {svc.replace("-", "")};\n\nservice Api {{ rpc Ping(Empty) returns (Empty); }}\nmessage Empty {{}}\n')
        elif lang == "python":
            self.python_tasks(d, svc, i)
            self.write(f"{d}/requirements.txt", "fastapi==0.111.0\nuvicorn==0.30.1\npydantic==2.7.4\n")
            for j in range(r.randint(10, 20)):
                self.write(f"{d}/src/{svc.replace('-', '_')}/{r.choice(WORDS)}_{j}.py", PY_FILE.format(n=j, doc=self.sentence(7)))
                if j % 2 == 0:
                    self.write(f"{d}/tests/test_{r.choice(WORDS)}_{j}.py", f"def test_{j}():\n    assert {j} + 1 == {j + 1}\n")
        elif lang == "rust":
            self.write(f"{d}/Cargo.toml", f'[package]\nname = "{svc}"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\ntokio = {{ version = "1", features = ["full"] }}\n')
            self.write(f"{d}/src/main.rs", "fn main() {\n    println!(\"hello\");\n}\n")
            for j in range(r.randint(8, 16)):
                self.write(f"{d}/src/{r.choice(WORDS)}_{j}.rs", f"/// {self.sentence(6)}\npub fn f{j}(x: u32) -> u32 {{\n    x.wrapping_mul({j + 3})\n}}\n")
            if i % 12 == 4:
                self.write(f"{d}/.cargo/config.toml", '[alias]\nb = "build --release"\nt = "test --all-features"\n\n[build]\nrustflags = ["-C", "target-cpu=native"]\n')
                self.c["cargo_configs"] += 1
                self.c["declared"]["cargo_aliases"] += 2
        else:
            self.package_json(d, f"@acme/{svc}", "service")
            for j in range(r.randint(10, 18)):
                mod = f"{r.choice(WORDS)}-{j}"
                self.write(f"{d}/src/routes/{mod}.ts", self.ts_module(mod))
            self.write(f"{d}/prisma/schema.prisma", "datasource db {\n  provider = \"postgresql\"\n  url = env(\"DATABASE_URL\")\n}\n")
        self.write(f"{d}/Dockerfile", "FROM gcr.io/distroless/base\nCOPY bin/app /app\nENTRYPOINT [\"/app\"]\n")
        self.write(f"{d}/config/local.yaml", f"port: {r.randint(3000, 9999)}\nlog_level: debug\n")
        self.write(f"{d}/db/migrations/0001_init.up.sql", "CREATE TABLE items (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL);\n")
        self.write(f"{d}/db/migrations/0001_init.down.sql", "DROP TABLE items;\n")
        self.write(f"{d}/scripts/deploy.sh", "#!/bin/sh\nset -eu\necho deploying \"$1\" to \"$2\"\n")
        xc = None
        if i % 15 == 6:
            xc = [("up", "Start the service and its database.", "docker compose up -d", None),
                  ("smoke", "Smoke-test the running service.", "curl -fsS localhost:8080/health", "up")]
        self.readme(d, svc, xc_tasks=xc, pm="make")
        self.more_sources(d, svc, i)

    def python_tasks(self, d, svc, i):
        """A Python service's pyproject.toml with the tasks of one manager (poe, pdm, hatch or
        console scripts under uv), and for some a tox.ini or a noxfile.py. No rng calls, so
        the rest of the tree is the same whatever is generated here."""
        mod = svc.replace("-", "_")
        text = f'[project]\nname = "{svc}"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
        # Python services are every sixth; number them among themselves.
        n = i // len(LANGS)
        kind = n % 4
        if kind == 0:
            text += (f'\n[tool.poe.tasks]\ntest = "pytest -q"\nlint = {{ cmd = "ruff check .", help = "Lint {svc}" }}\n'
                     f'serve = {{ script = "{mod}.app:serve", help = "Serve {svc}", args = [{{ name = "port", default = "8000" }}] }}\n'
                     'check = ["lint", "test"]\n_private = "echo hidden"\n')
            self.c["pyproject_poe"] += 1
            self.c["declared"]["poe_tasks"] += 4
        elif kind == 1:
            text += ('\n[tool.pdm.scripts]\ntest = "pytest"\nlint = { shell = "ruff check . && mypy src", help = "Lint and type-check" }\n'
                     'pre_test = "echo before"\nall = { composite = ["lint", "test"] }\n')
            self.c["pyproject_pdm"] += 1
            self.c["declared"]["pdm_scripts"] += 3
        elif kind == 2:
            text += ('\n[tool.hatch.envs.default.scripts]\ntest = "pytest {args}"\ncov = ["coverage run -m pytest", "coverage report"]\n'
                     '\n[tool.hatch.envs.lint.scripts]\nstyle = "ruff check {args:.}"\n')
            self.c["pyproject_hatch"] += 1
            self.c["declared"]["hatch_scripts"] += 3
        else:
            text += f'\n[project.scripts]\n{svc} = "{mod}.cli:main"\n{svc}-admin = "{mod}.admin:main"\n\n[tool.uv]\npackage = true\n'
            self.c["pyproject_uv"] += 1
            self.c["declared"]["console_scripts"] += 2
        self.write(f"{d}/pyproject.toml", text)
        if n % 3 == 0:
            self.write(f"{d}/tox.ini", "[tox]\nenvlist = py{311,312}, lint\n\n[testenv]\ndescription = run the tests\ncommands = pytest {posargs}\n\n[testenv:lint]\ndescription = lint\ncommands = ruff check .\n")
            self.c["tox_ini"] += 1
            self.c["declared"]["tox_envs"] += 3
        if n % 3 == 1:
            self.write(f"{d}/noxfile.py", 'import nox\n\n\n@nox.session(python=["3.11", "3.12"])\ndef tests(session):\n    """Run the tests."""\n    session.run("pytest")\n\n\n@nox.session(name="lint")\ndef lint_session(session):\n    """Lint the code."""\n    session.run("ruff", "check", ".")\n')
            self.c["noxfiles"] += 1
            self.c["declared"]["nox_sessions"] += 2

    def more_sources(self, d, svc, i):
        """The other task sources a service may carry, in fixed proportions of the 300
        services: Maven and Gradle builds, deno.json, composer.json, mise.toml (some with
        file tasks), compose.yaml, CMake presets, .vscode/tasks.json, an nx project.json,
        and an executable deploy script. No rng calls, so the rest of the tree is the same
        whatever is generated here."""
        def count(kind, n=1):
            self.c["other_sources"][kind] = self.c["other_sources"].get(kind, 0) + n

        if i % 20 == 0:
            self.write(f"{d}/pom.xml", POM.format(svc=svc))
            count("pom_xml")
        if i % 20 == 10:
            self.write(f"{d}/settings.gradle.kts", f'rootProject.name = "{svc}"\ninclude("api", "worker")\n')
            self.write(f"{d}/build.gradle.kts", GRADLE)
            count("build_gradle")
        if i % 25 == 3:
            self.write(f"{d}/deno.json", json.dumps({"tasks": {
                "dev": "deno run --watch main.ts",
                "test": {"command": "deno test -A", "description": f"Test {svc}"},
                "check": {"dependencies": ["test"], "description": "Everything CI runs"},
            }}, indent=2) + "\n")
            count("deno_json")
        if i % 25 == 13:
            self.write(f"{d}/composer.json", json.dumps({
                "name": f"acme/{svc}",
                "scripts": {"test": "phpunit", "lint": ["phpcs src", "@test"], "post-install-cmd": "echo installed"},
                "scripts-descriptions": {"test": "Run the unit tests"},
            }, indent=2) + "\n")
            count("composer_json")
        if i % 10 == 5:
            self.write(f"{d}/mise.toml", f'[tools]\nnode = "20"\n\n[tasks.dev]\ndescription = "Run {svc} locally"\nrun = "make run"\n\n[tasks.fmt]\nrun = ["gofmt -w .", "prettier --write ."]\n\n[tasks.ci]\ndepends = ["fmt"]\nrun = "make test"\n')
            count("mise_toml")
            if i % 30 == 5:
                for name in ("seed", "db/reset"):
                    self.write(f"{d}/.mise/tasks/{name}", f"#!/usr/bin/env bash\n#MISE description=\"{name} the database\"\nset -e\necho {name}\n")
                    os.chmod(os.path.join(self.out, d, ".mise/tasks", name), 0o755)
                count("mise_file_tasks", 2)
        if i % 12 == 1:
            self.write(f"{d}/compose.yaml", f"services:\n  app:\n    build: .\n    depends_on: [db]\n  db:\n    image: postgres:16\n    profiles: [dev]\n")
            count("compose_yaml")
        if i % 15 == 2:
            self.write(f"{d}/CMakePresets.json", json.dumps({"version": 6, "configurePresets": [
                {"name": "base", "hidden": True, "binaryDir": "${sourceDir}/build/${presetName}"},
                {"name": "debug", "inherits": "base", "displayName": "Debug"},
                {"name": "release", "inherits": "base", "displayName": "Release"}],
                "buildPresets": [{"name": "debug", "configurePreset": "debug"}],
                "testPresets": [{"name": "debug", "configurePreset": "debug"}]}, indent=2) + "\n")
            self.write(f"{d}/CMakeLists.txt", f"cmake_minimum_required(VERSION 3.20)\nproject({svc.replace('-', '_')} NONE)\nadd_custom_target(docs COMMAND doxygen)\n")
            count("cmake_presets")
        if i % 20 == 9:
            self.write(f"{d}/.vscode/tasks.json", '{\n  // Tasks for this service\n  "version": "2.0.0",\n  "tasks": [\n    { "label": "build", "type": "shell", "command": "make build", "group": "build" },\n    { "label": "watch", "type": "shell", "command": "make watch", "isBackground": true },\n  ],\n}\n')
            count("vscode_tasks_json")
        if i % 8 == 6:
            self.write(f"{d}/project.json", json.dumps({"name": svc, "targets": {
                "serve": {"executor": "nx:run-commands", "options": {"command": "make run"}, "continuous": True},
                "e2e": {"executor": "nx:run-commands", "options": {"command": "make e2e"}, "dependsOn": ["serve"]}}}, indent=2) + "\n")
            count("nx_project_json")
        os.chmod(os.path.join(self.out, d, "scripts/deploy.sh"), 0o755)
        count("executable_scripts")

    def rust_workspace(self, n):
        crates = [f"acme-{w}-{j}" for j, w in enumerate(WORDS[:n])]
        self.write("rust/Cargo.toml", "[workspace]\nresolver = \"2\"\nmembers = [\n" + "".join(f'  "crates/{c}",\n' for c in crates) + "]\n")
        self.write("rust/.cargo/config.toml", '[alias]\nxtask = "run --package xtask --"\nlint = ["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]\ncov = "llvm-cov --workspace --html"\n')
        self.c["cargo_configs"] += 1
        self.c["declared"]["cargo_aliases"] += 3
        self.readme("rust", "rust workspace")
        for c in crates:
            self.write(f"rust/crates/{c}/Cargo.toml", f'[package]\nname = "{c}"\nversion = "0.1.0"\nedition = "2021"\n')
            self.write(f"rust/crates/{c}/src/lib.rs", "".join(f"pub mod m{j};\n" for j in range(6)))
            for j in range(6):
                self.write(f"rust/crates/{c}/src/m{j}.rs", f"/// {self.sentence(6)}\npub fn run(x: u64) -> u64 {{\n    x.rotate_left({j})\n}}\n")
        self.write("rust/xtask/Cargo.toml", '[package]\nname = "xtask"\nversion = "0.1.0"\nedition = "2021"\n')
        self.write("rust/xtask/src/main.rs", "fn main() {}\n")

    def docs(self, n):
        sections = ["guides", "reference", "adr", "runbooks", "rfcs", "onboarding", "api"]
        for i in range(n):
            s = sections[i % len(sections)]
            self.write(f"docs/{s}/{i:04d}-{self.rng.choice(WORDS)}-{self.rng.choice(WORDS)}.md", self.markdown_doc(self.words(3).title()))
            if i % 25 == 0:
                self.write(f"docs/{s}/img/diagram-{i}.svg", '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>\n')
        self.write("docs/queue.md", self.markdown_doc("Queue worker"))

    def tooling(self):
        for t in ["eslint-config", "tsconfig", "scripts", "codegen"]:
            self.package_json(f"tooling/{t}", f"@acme/{t}", "config")
            self.readme(f"tooling/{t}", f"@acme/{t}")
            for j in range(8):
                self.write(f"tooling/{t}/lib/{self.rng.choice(WORDS)}-{j}.mjs", f"export default function run{j}() {{ return {j}; }}\n")

    def node_modules(self, total):
        """`total` gitignored files: a pnpm store at the root, plus per-app node_modules."""
        r = self.rng
        self.ignored = True
        written_before = self.c["files_ignored"]
        per_pkg = 20
        apps = None
        n_root = (total * 9 // 10) // per_pkg
        i = 0
        while self.c["files_ignored"] - written_before < total:
            remaining = total - (self.c["files_ignored"] - written_before)
            name = f"{r.choice(WORDS)}-{r.choice(['js', 'lib', 'kit', 'util', 'parser', 'loader'])}-{i}"
            version = f"{r.randint(1, 9)}.{r.randint(0, 20)}.{r.randint(0, 9)}"
            if i < n_root:
                d = f"node_modules/.pnpm/{name}@{version}/node_modules/{name}"
            else:
                if apps is None:
                    apps = sorted(os.listdir(os.path.join(self.out, "apps")))
                app = f"apps/{apps[i % 40]}"
                d = f"{app}/node_modules/{name}"
            n = min(per_pkg, remaining)
            # package.json with scripts that must never be listed.
            pkg = {"name": name, "version": version, "main": "lib/index.js",
                   "scripts": {"build": "rollup -c", "test": "mocha", "postinstall": "node install.js", "prepublishOnly": "npm test"}}
            self.write(f"{d}/package.json", json.dumps(pkg, indent=2) + "\n")
            self.c["package_json_ignored"] += 1
            k = 1
            for extra in ["README.md", "LICENSE", "CHANGELOG.md", "lib/index.js", "lib/index.d.ts"]:
                if k >= n:
                    break
                self.write(f"{d}/{extra}", f"// {name} {extra}\nmodule.exports = {{}};\n" if extra.endswith(".js") else f"{name} {extra}\n")
                k += 1
            while k < n:
                self.write(f"{d}/lib/{r.choice(WORDS)}-{k}.js", f"'use strict';\nmodule.exports = function f{k}(x) {{ return x + {k}; }};\n")
                k += 1
            i += 1
        self.ignored = False
        return i

    def lockfile(self, importers, store_pkgs):
        r = self.rng
        out = ["lockfileVersion: '9.0'", "", "settings:", "  autoInstallPeers: true", "  excludeLinksFromLockfile: false", "", "importers:", ""]
        for imp in importers:
            out.append(f"  {imp}:")
            out.append("    dependencies:")
            for d, v in r.sample(DEPS, 3):
                out += [f"      {d}:", f"        specifier: ^{v}", f"        version: {v}"]
            out.append("")
        out += ["packages:", ""]
        for d, v in DEPS + DEV_DEPS:
            out += [f"  {d}@{v}:", f"    resolution: {{integrity: sha512-{''.join(r.choice('abcdefABCDEF0123456789+/') for _ in range(86))}==}}", "    engines: {node: '>=18'}", ""]
        for p in store_pkgs:
            out += [f"  {p}:", f"    resolution: {{integrity: sha512-{'A' * 86}==}}", ""]
        out += ["snapshots:", ""]
        for d, v in DEPS:
            out += [f"  {d}@{v}: {{}}", ""]
        self.write("pnpm-lock.yaml", "\n".join(out))


POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.acme</groupId>
  <artifactId>{svc}</artifactId>
  <version>0.1.0</version>
  <packaging>jar</packaging>
  <profiles>
    <profile><id>integration</id></profile>
  </profiles>
</project>
"""

GRADLE = """plugins {
    java
    application
}

tasks.register("migrate") {
    description = "Apply the database migrations"
    group = "database"
}
"""


def make500(out):
    lines = ["# A single Makefile with 500 described targets (agg benchmark).",
             "SHELL := /bin/sh", "PREFIX ?= /usr/local", "OUT := build", "",
             ".PHONY: " + " ".join(f"target-{i:03d}" for i in range(0, 500, 50)), ""]
    for i in range(500):
        deps = f" target-{i - 1:03d}" if i % 10 == 9 else ""
        lines += [f"target-{i:03d}:{deps} ## Step {i}: {WORDS[i % len(WORDS)]} {WORDS[(i * 7) % len(WORDS)]} for component {i // 10}",
                  f"\t@echo 'running target {i}' && mkdir -p $(OUT)/{i}", ""]
    lines += ["$(OUT)/%.o: %.c", "\t$(CC) -c $< -o $@", ""]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "Makefile"), "w") as f:
        f.write("\n".join(lines))
    with open(os.path.join(out, MARKER), "w") as f:
        f.write("generated by scripts/gen-monorepo.py; safe to delete\n")


def git_init(path):
    subprocess.run(["git", "init", "-q", "-b", "main", path], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def prepare(path, force):
    if os.path.exists(path) and os.listdir(path):
        if os.path.exists(os.path.join(path, MARKER)) or force:
            shutil.rmtree(path)
        else:
            sys.exit(f"gen-monorepo: {path} exists, is not empty and was not generated by this script; refusing to delete it")


# --------------------------------------------------------------------------------------
# Templates
# --------------------------------------------------------------------------------------

GITIGNORE = """# dependencies
node_modules/
# build output
dist/
.next/
.turbo/
coverage/
*.log
.env
"""

COMMON_MK = """# Shared rules every service Makefile includes. SERVICE must be set before the include.
SHELL := /bin/bash
.DEFAULT_GOAL := help
VERSION ?= $(shell git describe --tags --always 2>/dev/null || echo dev)
REGISTRY ?= ghcr.io/acme
IMAGE = $(REGISTRY)/$(SERVICE):$(VERSION)

.PHONY: help docker-build docker-push

help: ## Show this help
\t@grep -hE '^[a-zA-Z0-9_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "%-20s %s\\n", $$1, $$2}'

docker-build: ## Build the container image
\tdocker build -t $(IMAGE) .

docker-push: docker-build ## Push the container image
\tdocker push $(IMAGE)
"""

ROOT_MAKEFILE = """# Root Makefile: orchestration across services.
SERVICE := monorepo
include build/common.mk

SERVICES := $(wildcard services/*)

.PHONY: all services test-all lint-all

all: services ## Build every service

services: ## Build each service
\t@for s in $(SERVICES); do $(MAKE) -C $$s build || exit 1; done

test-all: ## Test each service
\t@for s in $(SERVICES); do $(MAKE) -C $$s test || exit 1; done

lint-all:
\t@for s in $(SERVICES); do $(MAKE) -C $$s lint || exit 1; done

services/%/bin: ## (pattern) build one service
\t$(MAKE) -C services/$* build
"""

PKG_MAKEFILE = """# Native addon build for {name}.
CC ?= cc
CFLAGS ?= -O2 -fPIC -Wall
SRCS := $(wildcard native/*.c)
OBJS := $(SRCS:.c=.o)

.PHONY: native clean-native

native: build/addon.node ## Build the native addon

build/addon.node: $(OBJS)
\t$(CC) -shared -o $@ $^

%.o: %.c
\t$(CC) $(CFLAGS) -c $< -o $@

clean-native: ## Remove native build output
\trm -rf build native/*.o

rebuild: clean-native native ## Clean and rebuild
"""

COMMON_JUST = """# Shared recipes imported by every service justfile.

# Format the sources
fmt:
    prettier --write . || true

# Print the version
version:
    @git describe --tags --always
"""

DOCKER_TASKS = """version: '3'

tasks:
  build:
    desc: Build the container image
    cmds:
      - docker build -t {{.IMAGE}} .
  push:
    desc: Push the container image
    deps: [build]
    cmds:
      - docker push {{.IMAGE}}
"""

GO_TASKS = """version: '3'

tasks:
  test:
    desc: go test with the race detector
    cmds:
      - go test -race ./...
  vet:
    desc: go vet
    cmds:
      - go vet ./...
"""

GO_MAIN = """package main

import (
\t"log"
\t"net/http"
)

func main() {
\tlog.Fatal(http.ListenAndServe(":8080", nil))
}
"""

GO_FILE = """// Package {pkg} implements the {fn} domain logic.
package {pkg}

import "fmt"

// {fn} does the work.
func {fn}(x int) string {{
\treturn fmt.Sprintf("%d-%d", x, {n})
}}
"""

GO_TEST = """package {pkg}

import "testing"

func Test{fn}(t *testing.T) {{
\tif {fn}(1) == "" {{
\t\tt.Fatal("empty")
\t}}
}}
"""

PY_FILE = '''"""{doc}"""


def handler_{n}(payload: dict) -> dict:
    return {{"ok": True, "n": {n}, **payload}}
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--force", action="store_true", help="delete OUT_DIR even if this script did not create it")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    out = os.path.abspath(a.out_dir.rstrip("/"))
    make_dir = out + "-make500"
    t0 = time.monotonic()
    prepare(out, a.force)
    prepare(make_dir, a.force)
    g = Gen(out, a.seed)
    n_apps, n_packages, n_services = 120, 1876, 300
    g.root_files(n_apps, GROUPS)
    g.common_files()
    importers = ["."]
    for i in range(n_apps):
        g.app(i)
    for i in range(n_packages):
        g.package(i, GROUPS[i % len(GROUPS)])
    for i in range(n_services):
        g.service(i)
    g.rust_workspace(40)
    g.docs(1500)
    g.tooling()
    g.link_workspace_deps()
    for top in ("apps", "packages", "services", "tooling"):
        base = os.path.join(out, top)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d not in ("node_modules", "dist", "src", "test", "tests", "internal"))
            if "package.json" in filenames:
                importers.append(os.path.relpath(dirpath, out))
    n_store = g.node_modules(20000)
    g.lockfile(sorted(importers), [f"pkg-{i}@1.0.0" for i in range(n_store)])
    git_init(out)
    make500(make_dir)
    git_init(make_dir)
    c = g.c
    c["seed"] = a.seed
    c["out_dir"] = out
    c["make500_dir"] = make_dir
    c["make500_described_targets"] = 500
    c["files_total"] = c["files_tracked"] + c["files_ignored"]
    c["seconds"] = round(time.monotonic() - t0, 2)
    with open(out + "-counts.json", "w") as f:
        json.dump({k: v for k, v in c.items() if k != "seconds"}, f, indent=2, sort_keys=True)
        f.write("\n")
    if not a.quiet:
        d = c["declared"]
        print(f"generated {out} in {c['seconds']}s (seed {a.seed})")
        print(f"  files: {c['files_total']} total = {c['files_tracked']} tracked + {c['files_ignored']} gitignored "
              f"(node_modules/ and dist/); {c['bytes'] / 1e6:.1f} MB")
        print(f"  package.json: {c['package_json']} listed-able ({c['package_json_own_manager']} with their own packageManager), "
              f"{c['package_json_ignored']} gitignored")
        print(f"  Makefiles: {c['makefiles']} (each includes a common .mk); justfiles: {c['justfiles']} "
              f"(+{c['just_imported_files']} mod files); Taskfiles: {c['taskfiles']} (+{c['taskfile_included_files']} local includes)")
        print(f"  README.md: {c['readmes']} ({c['readmes_with_xc_tasks']} with an xc Tasks section); .cargo/config.toml: {c['cargo_configs']}")
        print(f"  declared tasks: {d['package_json_scripts']} package.json scripts (+{d['package_json_hook_scripts']} pre/post hooks), "
              f"{d['make_described_targets']} described make targets, {d['just_recipes']} just recipes, "
              f"{d['taskfile_tasks']} Taskfile tasks, {d['xc_tasks']} xc tasks, {d['cargo_aliases']} cargo aliases "
              f"(not counting included/imported files)")
        print(f"  other sources: " + ", ".join(f"{v} {k}" for k, v in sorted(c["other_sources"].items())))
        print(f"  {make_dir}: 1 Makefile with 500 described targets")
        print(f"  counts: {out}-counts.json")


if __name__ == "__main__":
    main()
