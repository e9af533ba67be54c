//! What a task's decision envelope and a batch's share: the members a decision made in a role
//! or through a delegation carries (issue 25), read and written alike, the identity it counts
//! for, and the delegation chain judged as it arrives. A ledger records either kind by the
//! same rules; only what the decision is about differs.

use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::{OwnedValue, Value};
use crate::model::approval::MAX_DELEGATION_LINKS;
use crate::model::delegation::{recorded_document, verify_chain, ChainFacts, LinkSource};
use crate::model::fields::Fields;
use crate::model::ledger::values::string;
use crate::model::proof::{DecisionRecord, ProofPolicy};

/// A decision envelope a ledger records: bare as a reviewer's system sends it, or derived
/// from the approval record a proof covers ([`super::Presented`]).
pub trait Envelope: Sized {
    /// The kind of approval record the envelope is derived from when it comes proven.
    type Record: DecisionRecord;

    /// Reads a bare envelope; problems are [`Code::InvalidDecision`] at the field.
    fn from_value(v: &Value<'_>) -> Result<Self>;

    /// The envelope a verified record makes, read through the envelope's own reader, so a
    /// proven decision obeys every rule a bare one does.
    fn of_record(record: &Self::Record) -> Result<Self>;

    /// Who decided.
    fn approver(&self) -> &str;

    /// Whom the approver decides for, through [`Envelope::delegation`].
    fn on_behalf_of(&self) -> Option<&str>;

    /// The delegation chain, root first (1 to 4 links, each as the approver presented it).
    fn delegation(&self) -> Option<&[OwnedValue]>;

    /// Who the decision counts for: `on_behalf_of` when made through a delegation, else the
    /// approver.
    fn counting_identity(&self) -> &str {
        self.on_behalf_of().unwrap_or(self.approver())
    }

    /// The digests of the delegation links it was made through, root first ([`link_digest`]).
    fn delegation_digests(&self) -> Vec<Digest> {
        self.delegation()
            .into_iter()
            .flatten()
            .map(link_digest)
            .collect()
    }
}

/// A decision's role and delegation, as read from an envelope: the optional `"role"` and,
/// together, `"on_behalf_of"` and `"delegation"`.
pub(crate) struct Acting {
    pub role: Option<String>,
    pub on_behalf_of: Option<String>,
    pub delegation: Option<Vec<OwnedValue>>,
}

impl Acting {
    /// Reads them from an envelope's fields.
    pub(crate) fn read(f: &Fields<'_, '_>) -> Result<Acting> {
        let optional = |key: &str| -> Result<Option<String>> {
            f.get(key)
                .map(|_| f.identity(key).map(str::to_owned))
                .transpose()
        };
        let on_behalf_of = optional("on_behalf_of")?;
        let delegation = match f.get("delegation") {
            None => None,
            Some(Value::Array(links)) if (1..=MAX_DELEGATION_LINKS).contains(&links.len()) => {
                Some(links.iter().cloned().map(Value::into_owned).collect())
            }
            Some(_) => {
                return Err(Error::new(
                    Code::InvalidDecision,
                    format!("delegation must be an array of 1 to {MAX_DELEGATION_LINKS} links"),
                )
                .in_key("delegation"))
            }
        };
        if on_behalf_of.is_some() != delegation.is_some() {
            let missing = if delegation.is_none() {
                "delegation"
            } else {
                "on_behalf_of"
            };
            return Err(Error::new(
                Code::InvalidDecision,
                "on_behalf_of and delegation come together or not at all",
            )
            .in_key(missing));
        }
        Ok(Acting {
            role: optional("role")?,
            on_behalf_of,
            delegation,
        })
    }
}

/// The members an envelope writes for its role and delegation: absent ones stay absent, so an
/// envelope without them is what it always was.
pub(crate) fn acting_entries(
    role: Option<&str>,
    on_behalf_of: Option<&str>,
    delegation: Option<&[OwnedValue]>,
) -> Vec<(&'static str, OwnedValue)> {
    let mut entries = Vec::new();
    entries.extend(role.map(|r| ("role", string(r))));
    entries.extend(on_behalf_of.map(|o| ("on_behalf_of", string(o))));
    entries.extend(delegation.map(|links| ("delegation", Value::Array(links.to_vec()))));
    entries
}

/// The members of a verified record that its envelope takes as they are: its ids, decision,
/// approver and times, and its role and delegation when it has them.
pub(crate) fn record_members(record: &Value<'_>) -> Vec<(&'static str, OwnedValue)> {
    const MEMBERS: [&str; 9] = [
        "approval_id",
        "decision_id",
        "decision",
        "approver",
        "decided_at",
        "expires_at",
        "role",
        "on_behalf_of",
        "delegation",
    ];
    let o = record.as_object();
    MEMBERS
        .into_iter()
        .filter_map(|k| Some((k, o?.get(k)?.clone().into_owned())))
        .collect()
}

/// Checks, as a decision arrives at `now` (the ledger's clock), the delegation chain `e` was
/// made through, about each of `actions` (the frozen envelopes it decides: a task's one, or
/// every item of a batch), by the rules of a check (depth, connection, cycles, attenuation,
/// windows, scope), its links' proofs already verified by [`super::Presented::read`];
/// revocation is for the claim, whose caller states it. Returns every delegate along the chain
/// (none without one), for the separation of duties. A chain that does not hold for any one
/// action is [`Code::DelegationRefused`] at `delegation`.
pub(crate) fn check_chain<'v, 'a: 'v>(
    e: &impl Envelope,
    decided_at: i64,
    actions: impl IntoIterator<Item = &'v Value<'a>>,
    now: i64,
) -> Result<Vec<String>> {
    let (Some(links), Some(root)) = (e.delegation(), e.on_behalf_of()) else {
        return Ok(Vec::new());
    };
    let mut delegates = Vec::new();
    for action in actions {
        let chain = verify_chain(links, root, e.approver(), decided_at, action, &Arrival(now))
            .map_err(|reason| {
                Error::new(
                    Code::DelegationRefused,
                    format!(
                        "the delegation chain does not hold as the decision arrives: {}",
                        reason.as_str()
                    ),
                )
                .in_key("delegation")
            })?;
        // The delegates are the links', the same for every action.
        delegates = chain.delegates;
    }
    Ok(delegates)
}

/// The digest by which facts and events name a delegation link a ledger stored: the
/// fingerprint of its document (a signed envelope's payload, a passkey-approved document
/// without its `passkey`, or a bare document), never of its wrapping; a link whose document
/// cannot be read (which `decide` refuses) is named by its own fingerprint.
pub fn link_digest(link: &Value<'_>) -> Digest {
    recorded_document(link).map_or_else(|| crate::fingerprint(link), |d| crate::fingerprint(&d))
}

/// A chain judged as its decision arrives: at the ledger's clock, its links' proofs verified
/// moments before against the server's keys (or, offline, against the verifier's trust: see
/// `evidence::verify`).
pub(crate) struct Arrival(pub(crate) i64);

impl ChainFacts for Arrival {
    fn now(&self) -> i64 {
        self.0
    }
    fn link_source(&self) -> LinkSource {
        LinkSource::Recorded
    }
    fn proof(&self) -> Option<&ProofPolicy> {
        None
    }
}
