//! The core tasks of an Android project (`com.android.application`, `com.android.library`),
//! whose names depend on its variants: one per build type the script declares with a
//! literal name in `android { buildTypes { … } }`, plus `debug` and `release`, which the
//! Android plugin always creates. Product flavors multiply the variants; agg lists the
//! build types alone, which are the variants of a project without flavors.

use super::plugins::{BUILD, Named, VERIFICATION};

/// Which Android plugin a project applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Application,
    Library,
}

/// The Android plugin an id names, if it is one.
pub(super) fn kind(id: &str) -> Option<Kind> {
    match id {
        "com.android.application" => Some(Kind::Application),
        "com.android.library" => Some(Kind::Library),
        _ => None,
    }
}

/// `staging` → `Staging`.
fn capitalized(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

fn task(name: String, group: Option<&'static str>, description: String) -> Named {
    Named {
        name,
        group,
        description,
    }
}

/// The tasks of an Android project of `kind` whose script declares `build_types`.
pub(super) fn tasks(kind: Kind, build_types: &[String]) -> Vec<Named> {
    let mut variants: Vec<&str> = vec!["debug", "release"];
    for declared in build_types {
        if !variants.contains(&declared.as_str())
            && declared.chars().all(|c| c.is_alphanumeric() || c == '_')
        {
            variants.push(declared);
        }
    }
    let mut out = vec![
        task(
            "clean".into(),
            BUILD,
            "Delete the project's build directory".into(),
        ),
        task("assemble".into(), BUILD, "Assemble every variant".into()),
        task(
            "build".into(),
            BUILD,
            "Assemble and test every variant".into(),
        ),
        task(
            "check".into(),
            VERIFICATION,
            "Run every check, lint included".into(),
        ),
        task(
            "test".into(),
            VERIFICATION,
            "Run the unit tests of every variant".into(),
        ),
        task(
            "lint".into(),
            VERIFICATION,
            "Run lint on the default variant".into(),
        ),
        task(
            "connectedAndroidTest".into(),
            VERIFICATION,
            "Run the instrumentation tests on connected devices".into(),
        ),
    ];
    for variant in variants {
        let v = capitalized(variant);
        out.push(task(
            format!("assemble{v}"),
            BUILD,
            format!("Assemble the {variant} variant"),
        ));
        out.push(task(
            format!("test{v}UnitTest"),
            VERIFICATION,
            format!("Run the unit tests of the {variant} variant"),
        ));
        out.push(task(
            format!("lint{v}"),
            VERIFICATION,
            format!("Run lint on the {variant} variant"),
        ));
        if kind == Kind::Application {
            out.push(task(
                format!("install{v}"),
                Some("install"),
                format!("Install the {variant} variant on a connected device"),
            ));
            out.push(task(
                format!("uninstall{v}"),
                Some("install"),
                format!("Uninstall the {variant} variant from a connected device"),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_are_debug_release_and_the_declared_build_types() {
        let names = |kind, types: &[&str]| -> Vec<String> {
            let types: Vec<String> = types.iter().map(|t| (*t).to_owned()).collect();
            tasks(kind, &types).into_iter().map(|t| t.name).collect()
        };
        let app = names(Kind::Application, &["release", "staging"]);
        for name in [
            "assembleDebug",
            "assembleRelease",
            "assembleStaging",
            "installStaging",
            "testStagingUnitTest",
            "lintRelease",
        ] {
            assert!(app.contains(&name.to_owned()), "{name} in {app:?}");
        }
        let lib = names(Kind::Library, &[]);
        assert!(lib.contains(&"assembleDebug".to_owned()));
        assert!(!lib.iter().any(|n| n.starts_with("install")), "{lib:?}");
        assert_eq!(kind("com.android.library"), Some(Kind::Library));
        assert_eq!(kind("java"), None);
    }
}
