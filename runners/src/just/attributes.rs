//! just's attributes as just itself checks them: which exist, how many arguments each
//! takes, which may repeat, and which items other than recipes may carry them. A justfile
//! that breaks one of these rules is refused by just as a whole, so the parser reports the
//! first such error in just's own words.

/// One attribute just knows.
struct Kind {
    name: &'static str,
    /// How many positional arguments it takes, at least and at most.
    args: (usize, usize),
    /// Whether one item may carry it more than once.
    repeatable: bool,
    /// An operating-system attribute (`[linux]`): any item may carry it.
    enabler: bool,
}

const fn kind(name: &'static str, args: (usize, usize)) -> Kind {
    Kind {
        name,
        args,
        repeatable: false,
        enabler: false,
    }
}

const fn repeatable(name: &'static str, args: (usize, usize)) -> Kind {
    Kind {
        repeatable: true,
        ..kind(name, args)
    }
}

const fn enabler(name: &'static str) -> Kind {
    Kind {
        enabler: true,
        ..kind(name, (0, 0))
    }
}

/// Every attribute of just 1.59, after just's `Attribute` and `AttributeKind`.
const KINDS: &[Kind] = &[
    enabler("android"),
    repeatable("arg", (1, 1)),
    kind("cache", (0, 0)),
    kind("confirm", (0, 1)),
    kind("continue", (0, usize::MAX)),
    kind("default", (0, 0)),
    kind("doc", (0, 1)),
    enabler("dragonfly"),
    repeatable("env", (2, 2)),
    kind("exit-message", (0, 0)),
    kind("extension", (1, 1)),
    enabler("freebsd"),
    repeatable("group", (1, 1)),
    enabler("linux"),
    enabler("macos"),
    repeatable("metadata", (1, usize::MAX)),
    enabler("netbsd"),
    kind("no-cd", (0, 0)),
    kind("no-exit-message", (0, 0)),
    kind("no-quiet", (0, 0)),
    enabler("openbsd"),
    kind("parallel", (0, 0)),
    kind("positional-arguments", (0, 0)),
    kind("private", (0, 0)),
    kind("script", (0, usize::MAX)),
    kind("shell", (0, 0)),
    kind("timestamp", (0, 1)),
    enabler("unix"),
    enabler("windows"),
    kind("working-directory", (1, 1)),
];

/// What kind of item attributes sit on, as just names it in its errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ItemKind {
    Recipe,
    Alias,
    Assignment,
    Module,
    Import,
    Setting,
    Unexport,
}

impl ItemKind {
    fn name(self) -> &'static str {
        match self {
            ItemKind::Recipe => "recipe",
            ItemKind::Alias => "alias",
            ItemKind::Assignment => "assignment",
            ItemKind::Module => "module",
            ItemKind::Import => "import",
            ItemKind::Setting => "setting",
            ItemKind::Unexport => "unexport",
        }
    }

    /// The attributes besides the OS ones this kind of item may carry (recipes: all).
    fn allows(self, attribute: &str) -> bool {
        match self {
            ItemKind::Recipe => true,
            ItemKind::Alias | ItemKind::Assignment => attribute == "private",
            ItemKind::Module => matches!(attribute, "doc" | "group" | "private"),
            ItemKind::Import | ItemKind::Setting | ItemKind::Unexport => false,
        }
    }
}

/// One attribute as written: its name, how many positional arguments it has, its line.
#[derive(Debug, Clone)]
pub(super) struct Written<'a> {
    pub name: &'a str,
    pub args: usize,
    pub line: u32,
}

/// The first error just reports for these attributes (in order, as written) on an item of
/// `item` kind named `item_name` at `item_line`, with the line it points at.
pub(super) fn check(
    attributes: &[Written<'_>],
    item: ItemKind,
    item_name: &str,
    item_line: u32,
) -> Option<(u32, String)> {
    let mut seen: Vec<(&str, u32)> = Vec::new();
    for attribute in attributes {
        let Some(kind) = KINDS.iter().find(|k| k.name == attribute.name) else {
            return Some((
                attribute.line,
                format!("unknown attribute `{}`", attribute.name),
            ));
        };
        let (min, max) = kind.args;
        if attribute.args < min || attribute.args > max {
            let takes = if min == max {
                arguments(min)
            } else if attribute.args < min {
                format!("at least {}", arguments(min))
            } else {
                format!("at most {}", arguments(max))
            };
            return Some((
                attribute.line,
                format!(
                    "attribute `{}` got {} but takes {takes}",
                    attribute.name,
                    arguments(attribute.args)
                ),
            ));
        }
        if !kind.repeatable
            && let Some((_, first)) = seen.iter().find(|(name, _)| *name == kind.name)
        {
            return Some((
                attribute.line,
                format!(
                    "attribute `{}` first used on line {first} is duplicated on line {}",
                    kind.name, attribute.line
                ),
            ));
        }
        seen.push((kind.name, attribute.line));
    }
    let invalid = attributes.iter().find(|a| {
        KINDS
            .iter()
            .any(|k| k.name == a.name && !k.enabler && !item.allows(a.name))
    });
    if let Some(attribute) = invalid {
        return Some((
            item_line,
            format!(
                "{} `{item_name}` has invalid attribute `{}`",
                item.name(),
                attribute.name
            ),
        ));
    }
    None
}

/// The checks just makes on a recipe's attributes together, once the recipe is read:
/// pairs that exclude each other, and script attributes on a recipe that is no script
/// (`script`: it has `[script]` or a `#!` line).
pub(super) fn check_recipe(
    attributes: &[Written<'_>],
    recipe: &str,
    script: bool,
) -> Option<String> {
    let has = |name: &str| attributes.iter().any(|a| a.name == name);
    let exclusive = [
        ("no-cd", "working-directory"),
        ("exit-message", "no-exit-message"),
        ("script", "shell"),
    ];
    if let Some((a, b)) = exclusive.iter().find(|(a, b)| has(a) && has(b)) {
        return Some(format!(
            "recipe `{recipe}` has both `[{a}]` and `[{b}]` attributes"
        ));
    }
    if !script
        && !has("script")
        && let Some(name) = ["cache", "extension"].into_iter().find(|n| has(n))
    {
        return Some(format!(
            "shell recipe `{recipe}` has script recipe attribute `{name}`"
        ));
    }
    None
}

/// `1 argument`, `0 arguments`.
fn arguments(count: usize) -> String {
    if count == 1 {
        "1 argument".to_owned()
    } else {
        format!("{count} arguments")
    }
}
