//! One read of a directory: the names it holds, each with its kind and inode, and the
//! directory's own [`Stamp`] when asked for, without a memory allocation per entry.
//!
//! On Linux the directory is opened once (`O_DIRECTORY | O_NOFOLLOW`), stamped with `fstat`
//! on that descriptor, and read with `getdents64` into a buffer on the stack (rustix's
//! `RawDir`): no `stat` per directory by path, no name copied but into the listing's own
//! buffer. Elsewhere `std::fs::read_dir` reads it, and the stamp is taken by path.
//!
//! An entry whose kind the directory does not record (`DT_UNKNOWN`, on some file systems) is
//! asked with `lstat`; links are never followed.

use std::fs::FileType;
use std::io;
use std::ops::Range;
use std::path::Path;

use super::ignores::Present;
use super::stamp::Stamp;

/// What an entry is, as the directory records it (a symlink is a symlink, whatever it
/// points to).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Dir,
    File,
    Symlink,
    /// A FIFO, a socket, a device.
    Other,
}

impl Kind {
    /// The kind of what `lstat` found.
    pub(super) fn of_metadata(meta: &std::fs::Metadata) -> Kind {
        Kind::of(meta.file_type())
    }

    fn of(file_type: FileType) -> Kind {
        if file_type.is_dir() {
            Kind::Dir
        } else if file_type.is_file() {
            Kind::File
        } else if file_type.is_symlink() {
            Kind::Symlink
        } else {
            Kind::Other
        }
    }
}

/// One entry of a [`Listing`].
#[derive(Clone, Debug)]
pub(super) struct Listed {
    name: Range<usize>,
    pub(super) kind: Kind,
    pub(super) ino: u64,
}

/// The entries of one directory (`.` and `..` aside), kept for the next directory's read so
/// that a thread reading thousands of directories allocates for the largest only.
#[derive(Default, Debug)]
pub(super) struct Listing {
    names: Vec<u8>,
    pub(super) entries: Vec<Listed>,
    /// Entries whose kind could not be told, by name, with why.
    pub(super) unreadable: Vec<(Range<usize>, io::Error)>,
    /// Why the listing stopped early, if it did: the entries before are listed.
    pub(super) cut_short: Option<io::Error>,
    /// Which ignore files the directory holds: [`Present::Unknown`] when the listing stopped
    /// early, so that an ignore file among the entries not read is still looked for.
    pub(super) present: Present,
}

impl Listing {
    /// The name of an entry.
    pub(super) fn name(&self, entry: &Listed) -> &[u8] {
        self.unreadable_name(&entry.name)
    }

    /// The name of an entry whose kind could not be told (or of any entry, by its range).
    pub(super) fn unreadable_name(&self, range: &Range<usize>) -> &[u8] {
        self.names.get(range.clone()).unwrap_or_default()
    }

    /// Notes that the listing stopped early, for `why`.
    fn stop(&mut self, why: io::Error) {
        self.cut_short = Some(why);
        self.present = Present::Unknown;
    }

    /// The listing to keep for the next read: this one, or a fresh one when this one grew
    /// past [`Listing::KEPT_BYTES`] for a very large directory (so that a long-lived
    /// process's threads do not each hold on to that much).
    pub(super) fn kept(self) -> Listing {
        let held = self.names.capacity() + self.entries.capacity() * size_of::<Listed>();
        if held > Self::KEPT_BYTES {
            Listing::default()
        } else {
            self
        }
    }

    /// The most memory a listing kept between reads may hold.
    const KEPT_BYTES: usize = 1 << 20;

    fn clear(&mut self) {
        self.names.clear();
        self.entries.clear();
        self.unreadable.clear();
        self.cut_short = None;
        self.present = Present::Listed {
            ignore: false,
            gitignore: false,
        };
    }

    /// Adds an entry, or notes why its kind could not be told.
    fn add(&mut self, name: &[u8], kind: io::Result<(Kind, u64)>) {
        if name == b"." || name == b".." {
            return;
        }
        let start = self.names.len();
        self.names.extend_from_slice(name);
        let range = start..self.names.len();
        self.present.note(name);
        match kind {
            Ok((kind, ino)) => self.entries.push(Listed {
                name: range,
                kind,
                ino,
            }),
            Err(err) => self.unreadable.push((range, err)),
        }
    }
}

/// Reads the directory at `path` into `listing` (emptied first), with the directory's stamp
/// when `stamp` is asked for (`None` when it could not be taken). An error opening the
/// directory is returned; one while reading it is kept in [`Listing::cut_short`].
#[cfg(target_os = "linux")]
pub(super) fn read_dir(
    path: &Path,
    stamp: bool,
    listing: &mut Listing,
) -> io::Result<Option<Stamp>> {
    use std::mem::MaybeUninit;

    use rustix::fs::{AtFlags, CWD, FileType as RawType, Mode, OFlags, RawDir, openat, statat};

    listing.clear();
    let fd = openat(
        CWD,
        path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let dir = std::fs::File::from(fd);
    let stamp = if stamp {
        dir.metadata().ok().map(|m| Stamp::of(&m))
    } else {
        None
    };
    let mut buffer = [MaybeUninit::<u8>::uninit(); 16 * 1024];
    let mut raw = RawDir::new(&dir, &mut buffer);
    while let Some(entry) = raw.next() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                listing.stop(err.into());
                break;
            }
        };
        let of = |raw: RawType| match raw {
            RawType::Directory => Kind::Dir,
            RawType::RegularFile => Kind::File,
            RawType::Symlink => Kind::Symlink,
            _ => Kind::Other,
        };
        let kind = match entry.file_type() {
            RawType::Unknown => statat(&dir, entry.file_name(), AtFlags::SYMLINK_NOFOLLOW)
                .map(|st| (of(RawType::from_raw_mode(st.st_mode)), st.st_ino))
                .map_err(io::Error::from),
            raw => Ok((of(raw), entry.ino())),
        };
        listing.add(entry.file_name().to_bytes(), kind);
    }
    Ok(stamp)
}

/// Reads the directory at `path` into `listing` (emptied first), with the directory's stamp
/// when `stamp` is asked for (`None` when it could not be taken). An error opening the
/// directory is returned; one while reading it is kept in [`Listing::cut_short`].
#[cfg(not(target_os = "linux"))]
pub(super) fn read_dir(
    path: &Path,
    stamp: bool,
    listing: &mut Listing,
) -> io::Result<Option<Stamp>> {
    read_dir_portably(path, stamp, listing)
}

/// [`read_dir`] with the standard library alone (what other systems use; on Linux, what the
/// tests compare the fast reading with).
#[cfg_attr(target_os = "linux", allow(dead_code))]
pub(super) fn read_dir_portably(
    path: &Path,
    stamp: bool,
    listing: &mut Listing,
) -> io::Result<Option<Stamp>> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::DirEntryExt;

    listing.clear();
    let entries = std::fs::read_dir(path)?;
    let stamp = if stamp { Stamp::at(path) } else { None };
    for entry in entries {
        match entry {
            Ok(entry) => {
                let kind = entry.file_type().map(|t| (Kind::of(t), entry.ino()));
                listing.add(entry.file_name().as_bytes(), kind);
            }
            Err(err) => {
                listing.stop(err);
                break;
            }
        }
    }
    Ok(stamp)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn entries(listing: &Listing) -> BTreeMap<Vec<u8>, (Kind, u64)> {
        listing
            .entries
            .iter()
            .map(|e| (listing.name(e).to_vec(), (e.kind, e.ino)))
            .collect()
    }

    #[test]
    fn every_kind_of_entry_is_listed_as_the_standard_library_lists_it() {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::fs::MetadataExt;
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir(root.join("dir")).unwrap();
        std::fs::write(root.join("file"), "x").unwrap();
        std::fs::write(root.join(".gitignore"), "x").unwrap();
        std::os::unix::fs::symlink("dir", root.join("link")).unwrap();
        std::os::unix::fs::symlink("nowhere", root.join("dangling")).unwrap();
        nix::unistd::mkfifo(&root.join("fifo"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        let odd = std::ffi::OsStr::from_bytes(b"not-utf8-\xff");
        std::fs::write(root.join(odd), "").unwrap();
        for n in 0..600 {
            std::fs::write(root.join(format!("many-{n:04}-{}", "x".repeat(40))), "").unwrap();
        }

        let mut fast = Listing::default();
        let stamp = read_dir(root, true, &mut fast).unwrap();
        let mut portable = Listing::default();
        let portable_stamp = read_dir_portably(root, true, &mut portable).unwrap();
        assert_eq!(stamp, portable_stamp);
        assert_eq!(stamp, Stamp::at(root));
        assert!(fast.cut_short.is_none() && fast.unreadable.is_empty());
        let listed = entries(&fast);
        assert_eq!(listed, entries(&portable));
        assert_eq!(listed.len(), 607, "all entries, `.` and `..` aside");
        let kind = |name: &[u8]| listed.get(name).map(|(k, _)| *k);
        assert_eq!(kind(b"dir"), Some(Kind::Dir));
        assert_eq!(kind(b"file"), Some(Kind::File));
        assert_eq!(kind(b"link"), Some(Kind::Symlink), "not followed");
        assert_eq!(kind(b"dangling"), Some(Kind::Symlink));
        assert_eq!(kind(b"fifo"), Some(Kind::Other));
        assert_eq!(kind(b"not-utf8-\xff"), Some(Kind::File));
        let ino = std::fs::symlink_metadata(root.join("file")).unwrap().ino();
        assert_eq!(listed.get(&b"file"[..]).map(|(_, i)| *i), Some(ino));
        assert_eq!(
            fast.present,
            Present::Listed {
                ignore: false,
                gitignore: true
            }
        );

        // A second read into the same listing starts afresh.
        read_dir(&root.join("dir"), false, &mut fast).unwrap();
        assert!(fast.entries.is_empty());
        assert_eq!(
            fast.present,
            Present::Listed {
                ignore: false,
                gitignore: false
            }
        );
    }

    /// A listing as a read begins it, holding one file.
    fn listing_of(name: &[u8]) -> Listing {
        let mut listing = Listing::default();
        listing.clear();
        listing.add(name, Ok((Kind::File, 1)));
        listing
    }

    #[test]
    fn a_listing_cut_short_does_not_vouch_for_the_ignore_files_it_did_not_reach() {
        let mut listing = listing_of(b".ignore");
        assert_eq!(
            listing.present,
            Present::Listed {
                ignore: true,
                gitignore: false
            }
        );
        listing.stop(io::Error::other("EIO"));
        assert_eq!(
            listing.present,
            Present::Unknown,
            "a later .gitignore may exist"
        );
        assert_eq!(listing.entries.len(), 1, "what was read is kept");
    }

    #[test]
    fn a_listing_of_a_huge_directory_is_not_kept() {
        assert!(
            listing_of(b"a").kept().entries.capacity() > 0,
            "a small listing is kept"
        );
        let mut huge = Listing::default();
        for n in 0..40_000_u32 {
            huge.add(
                format!("entry-{n:08}").as_bytes(),
                Ok((Kind::File, u64::from(n))),
            );
        }
        let kept = huge.kept();
        assert_eq!(kept.names.capacity(), 0);
        assert_eq!(kept.entries.capacity(), 0);
    }

    #[test]
    fn a_symlink_or_a_file_is_not_read_as_a_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir(root.join("dir")).unwrap();
        std::os::unix::fs::symlink("dir", root.join("link")).unwrap();
        std::fs::write(root.join("file"), "x").unwrap();
        let mut listing = Listing::default();
        assert!(read_dir(&root.join("link"), false, &mut listing).is_err());
        assert!(read_dir(&root.join("file"), false, &mut listing).is_err());
        assert!(read_dir(&root.join("gone"), false, &mut listing).is_err());
    }
}
