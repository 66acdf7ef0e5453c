//! `Record<V>`: a plain JavaScript object (`{}`) as far as Mastra's tool code
//! can tell: own data properties, their order, and the one prototype every
//! plain object inherits from.
//!
//! Three rules of ECMA-262 decide what Mastra sends, and they are all here:
//! - key order (`OrdinaryOwnPropertyKeys`): array indices first, ascending,
//!   then the other string keys in insertion order;
//! - `obj[k] = v` ([[Set]]) with `k == "__proto__"` and no own `__proto__`
//!   runs the inherited setter: it replaces the prototype and creates no key,
//!   while `Object.fromEntries`, spread and `JSON.parse` define an own
//!   property (CreateDataProperty);
//! - `obj[k]` ([[Get]]) finds what `Object.prototype` has when there is no
//!   own property, so `tools["__proto__"]` is truthy on every plain object.

use crate::js::string::JsString;
use std::collections::HashMap;

pub use crate::naming::{is_inherited_name, OBJECT_PROTOTYPE};

/// What `obj[key]` reads.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup<'a, V> {
    Own(&'a V),
    /// A property of the prototype chain: truthy, and not one of ours.
    Inherited,
    Missing,
}

impl<V> Lookup<'_, V> {
    pub fn is_truthy(&self) -> bool {
        !matches!(self, Lookup::Missing)
    }
}

/// Every operation is constant time but `delete` (amortised constant) and
/// the ones that list keys (linear): Mastra's `formatTools` renames each
/// key in turn, and a case may have 100,000 of them.
#[derive(Debug, Clone)]
pub struct Record<V> {
    /// Own properties in insertion order (not key order: see `keys`); a
    /// deleted property leaves `None`, so positions in `index` stay valid.
    props: Vec<Option<(JsString, V)>>,
    /// Where each own key is in `props`.
    index: HashMap<JsString, usize>,
    /// Whether `obj.__proto__ = x` replaced the prototype. Lookups of
    /// `Object.prototype`'s names are then answered by `x` instead; the
    /// model treats that as unmodelled rather than guess at it.
    pub prototype_replaced: bool,
}

impl<V> Default for Record<V> {
    fn default() -> Self {
        Record {
            props: Vec::new(),
            index: HashMap::new(),
            prototype_replaced: false,
        }
    }
}

/// Two records are equal when a program could not tell them apart: the
/// same own properties in the same order, the same prototype.
impl<V: PartialEq> PartialEq for Record<V> {
    fn eq(&self, other: &Self) -> bool {
        self.prototype_replaced == other.prototype_replaced
            && self.index.len() == other.index.len()
            && self.live().eq(other.live())
    }
}

impl<V: Eq> Eq for Record<V> {}

impl<V> Record<V> {
    /// Own properties in insertion order.
    fn live(&self) -> impl Iterator<Item = (&JsString, &V)> {
        self.props.iter().flatten().map(|(k, v)| (k, v))
    }
}

impl<V: Clone> Record<V> {
    pub fn new() -> Self {
        Self::default()
    }

    /// `Object.fromEntries(entries)`: CreateDataProperty for each, so a
    /// repeated key keeps its first position and takes the later value, and
    /// `"__proto__"` is an ordinary own key.
    pub fn from_entries(entries: impl IntoIterator<Item = (JsString, V)>) -> Self {
        let mut r = Record::new();
        for (k, v) in entries {
            r.define(k, v);
        }
        r
    }

    /// CreateDataProperty.
    pub fn define(&mut self, key: JsString, value: V) {
        match self.index.get(&key) {
            Some(&at) => {
                if let Some(slot) = &mut self.props[at] {
                    slot.1 = value;
                }
            }
            None => {
                self.index.insert(key.clone(), self.props.len());
                self.props.push(Some((key, value)));
            }
        }
    }

    /// `obj[key] = value`.
    pub fn assign(&mut self, key: JsString, value: V) {
        if key == JsString::from("__proto__") && !self.has_own(&key) {
            self.prototype_replaced = true;
            return;
        }
        self.define(key, value);
    }

    /// `delete obj[key]`.
    pub fn delete(&mut self, key: &JsString) {
        if let Some(at) = self.index.remove(key) {
            self.props[at] = None;
        }
        // Compact once most slots are holes, so memory and listing stay
        // linear in the live properties.
        if self.props.len() > 64 && self.index.len() < self.props.len() / 2 {
            self.props.retain(Option::is_some);
            for (at, (k, _)) in self.props.iter().flatten().enumerate() {
                if let Some(slot) = self.index.get_mut(k) {
                    *slot = at;
                }
            }
        }
    }

    pub fn has_own(&self, key: &JsString) -> bool {
        self.index.contains_key(key)
    }

    /// `obj[key]`.
    pub fn get(&self, key: &JsString) -> Lookup<'_, V> {
        match self.index.get(key).and_then(|&at| self.props[at].as_ref()) {
            Some((_, v)) => Lookup::Own(v),
            None if is_inherited_name(key) => Lookup::Inherited,
            None => Lookup::Missing,
        }
    }

    /// `Object.keys(obj)`: array indices ascending, then insertion order.
    pub fn keys(&self) -> Vec<JsString> {
        self.entries().into_iter().map(|(k, _)| k.clone()).collect()
    }

    /// `Object.entries(obj)`, in key order.
    pub fn entries(&self) -> Vec<(&JsString, &V)> {
        let mut indices: Vec<(u32, &JsString, &V)> = self
            .live()
            .filter_map(|(k, v)| k.array_index().map(|i| (i, k, v)))
            .collect();
        indices.sort_by_key(|(i, _, _)| *i);
        let rest = self.live().filter(|(k, _)| k.array_index().is_none());
        indices
            .into_iter()
            .map(|(_, k, v)| (k, v))
            .chain(rest)
            .collect()
    }

    /// `Object.values(obj)`, in key order.
    pub fn values(&self) -> Vec<&V> {
        self.entries().into_iter().map(|(_, v)| v).collect()
    }

    /// `{ ...self, ...other }` as a fold step: CopyDataProperties of
    /// `other` onto `self`.
    pub fn spread_from(&mut self, other: &Record<V>) {
        for (k, v) in other.entries() {
            self.define(k.clone(), v.clone());
        }
    }

    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(r: &Record<u8>) -> Vec<String> {
        r.keys().iter().map(JsString::to_lossy).collect()
    }

    fn rec(ks: &[&str]) -> Record<u8> {
        Record::from_entries(
            ks.iter()
                .enumerate()
                .map(|(i, k)| (JsString::from(*k), i as u8)),
        )
    }

    #[test]
    fn array_indices_come_first_in_numeric_order() {
        let r = rec(&["b", "10", "9", "a", "4294967295", "4294967294", "01", "-1"]);
        assert_eq!(
            keys(&r),
            ["9", "10", "4294967294", "b", "a", "4294967295", "01", "-1"]
        );
    }

    #[test]
    fn from_entries_keeps_first_position_and_last_value() {
        let r = rec(&["a", "b", "a"]);
        assert_eq!(keys(&r), ["a", "b"]);
        assert_eq!(r.get(&"a".into()), Lookup::Own(&2));
    }

    #[test]
    fn proto_is_an_own_key_when_defined_and_a_setter_when_assigned() {
        let defined = rec(&["a", "__proto__"]);
        assert_eq!(keys(&defined), ["a", "__proto__"]);
        let mut assigned: Record<u8> = Record::new();
        assigned.assign("a".into(), 1);
        assigned.assign("__proto__".into(), 2);
        assert_eq!(keys(&assigned), ["a"]);
        assert!(assigned.prototype_replaced);
        // Once own, assignment updates it like any key.
        let mut own = defined.clone();
        own.assign("__proto__".into(), 9);
        assert_eq!(own.get(&"__proto__".into()), Lookup::Own(&9));
    }

    #[test]
    fn lookups_see_object_prototype() {
        let r = rec(&["a"]);
        assert_eq!(r.get(&"toString".into()), Lookup::Inherited);
        assert_eq!(r.get(&"__proto__".into()), Lookup::Inherited);
        assert_eq!(r.get(&"__defineGetter__".into()), Lookup::Inherited);
        assert_eq!(r.get(&"tostring".into()), Lookup::Missing);
        assert!(!r.has_own(&"toString".into()));
    }

    #[test]
    fn a_deleted_key_defined_again_goes_last() {
        let mut r = rec(&["a", "b", "c"]);
        r.delete(&"a".into());
        r.define("a".into(), 7);
        assert_eq!(keys(&r), ["b", "c", "a"]);
        assert_eq!(r.get(&"a".into()), Lookup::Own(&7));
        assert_eq!(r.len(), 3);
        let mut same = rec(&["b", "c", "a"]);
        same.define("a".into(), 7);
        same.define("b".into(), 1);
        same.define("c".into(), 2);
        assert_eq!(r, same, "holes left by a deletion are not seen");
    }

    #[test]
    fn many_deletions_keep_order_and_lookups() {
        let names: Vec<String> = (0..1000).map(|i| format!("k{i}")).collect();
        let mut r = rec(&names.iter().map(String::as_str).collect::<Vec<_>>());
        for n in names.iter().step_by(3) {
            r.delete(&n.as_str().into());
        }
        let left: Vec<String> = names
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 3 != 0)
            .map(|(_, n)| n.clone())
            .collect();
        assert_eq!(keys(&r), left);
        assert!(r.has_own(&"k1".into()) && !r.has_own(&"k0".into()));
        assert_eq!(r.get(&"k998".into()), Lookup::Own(&((998 % 256) as u8)));
    }

    #[test]
    fn spread_defines_in_key_order() {
        let mut a = rec(&["x", "5"]);
        a.spread_from(&rec(&["3", "y", "x"]));
        assert_eq!(keys(&a), ["3", "5", "x", "y"]);
    }
}
