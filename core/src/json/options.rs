//! Number profiles and input limits.

use crate::error::{Code, Error, Result};
use std::str::FromStr;

/// How numbers are treated when they are read from text or from a host integer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Profile {
    /// Canonicalization may change how a number is spelled, never which number it is: a number
    /// whose canonical form denotes a different decimal value than its input is
    /// [`Code::InexactNumber`] (`9007199254740993`, `0.10000000000000001`, `1e-400`).
    #[default]
    Strict,
    /// Plain RFC 8785: every number is rounded to the nearest IEEE 754 double.
    Rfc8785,
}

impl Profile {
    /// Every profile.
    pub const ALL: [Profile; 2] = [Profile::Strict, Profile::Rfc8785];

    /// The profile's name, as accepted by [`Profile::from_str`].
    pub const fn as_str(self) -> &'static str {
        match self {
            Profile::Strict => "strict",
            Profile::Rfc8785 => "rfc8785",
        }
    }
}

impl FromStr for Profile {
    type Err = Error;

    /// Parses `strict` or `rfc8785`; anything else is [`Code::InvalidOption`].
    fn from_str(s: &str) -> Result<Profile> {
        match s {
            "strict" => Ok(Profile::Strict),
            "rfc8785" => Ok(Profile::Rfc8785),
            _ => Err(Error::new(
                Code::InvalidOption,
                format!("unknown profile {s:?}: expected \"strict\" or \"rfc8785\""),
            )),
        }
    }
}

/// Default limit on the size of JSON input: 16 MiB.
pub const DEFAULT_MAX_BYTES: usize = 16 * 1024 * 1024;

/// Default limit on nesting of arrays and objects: 128 levels (`[]` is one level).
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// The largest `max_depth` accepted: 256 levels. Parsing, the direct text path, writing,
/// comparing, cloning and dropping values and the permit check's drift diff recurse once per
/// level; at this depth each of them runs on a 256 KiB thread stack of which the caller has
/// already used a quarter, in an optimized build (`core/tests/stack.rs`). They need 300 to
/// 375 bytes a level: 512 levels would fit too, 640 would not, so 256 leaves a margin of two.
/// Options with a larger `max_depth` are [`Code::InvalidOption`] at every entry point, so no
/// option can make input overflow the stack. (Unoptimized builds use about 32 times the stack
/// per level.)
pub const MAX_DEPTH_LIMIT: usize = 256;

/// Options for reading JSON text or host values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Options {
    /// Number profile.
    pub profile: Profile,
    /// Largest accepted input, in bytes; longer input is [`Code::SizeLimitExceeded`].
    pub max_bytes: usize,
    /// Deepest accepted nesting; deeper input is [`Code::DepthLimitExceeded`]. At most
    /// [`MAX_DEPTH_LIMIT`].
    pub max_depth: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            profile: Profile::Strict,
            max_bytes: DEFAULT_MAX_BYTES,
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }
}

impl Options {
    /// Checks the options themselves: a `max_depth` above [`MAX_DEPTH_LIMIT`] is
    /// [`Code::InvalidOption`]. [`crate::parse()`], [`crate::canonicalize_json`] and
    /// [`crate::fingerprint_json`] call it before reading anything.
    pub fn check(&self) -> Result<()> {
        if self.max_depth > MAX_DEPTH_LIMIT {
            return Err(Error::new(
                Code::InvalidOption,
                format!(
                    "max_depth {} is more than {MAX_DEPTH_LIMIT}, the deepest nesting that can be \
                     read without risking a stack overflow",
                    self.max_depth
                ),
            ));
        }
        Ok(())
    }

    /// Default limits with the given profile.
    pub fn with_profile(profile: Profile) -> Options {
        Options {
            profile,
            ..Options::default()
        }
    }
}
