//! The page cache of the page-cache simulation ([`crate::readahead`]): which pages a
//! bounded cache keeps and which it reclaims.
//!
//! Two policies, over the same intrusive lists (O(1) per operation):
//!
//! - [`Policy::Lru`]: one list; a page read enters at the head, a touch moves its page to
//!   the head, the tail is evicted.
//! - [`Policy::TwoList`]: the kernel's reclaim without MGLRU (`mm/vmscan.c`,
//!   `mm/swap.c`; this machine's 6.18 kernel has no `/sys/kernel/mm/lru_gen`), reduced to
//!   what a read-only file mapping sees. A page read (by a fault or by readahead) enters
//!   the head of the **inactive** list; a touch through the mapping only sets its
//!   accessed bit (the PTE's young bit: the page does not move). Reclaim takes the
//!   inactive list's tail: a page touched since it was read or last scanned is
//!   **activated** (moved to the head of the **active** list, bit cleared — the
//!   kernel's `folio_check_references` activates a folio with more than one young PTE
//!   at once, and readahead fills file mappings with folios of several pages), an
//!   untouched one is evicted. Whenever the active list is larger than the inactive one
//!   (`inactive_is_low` with ratio 1, a memory cgroup of less than 1 GiB), its tail is
//!   deactivated to the inactive head with the bit cleared (`shrink_active_list`). So
//!   pages read ahead and not yet touched are reclaimed before pages already used, and a
//!   streaming reader's used pages hold up to half the cache: behind a cache smaller
//!   than the streams' windows, the windows are evicted before they are read — what the
//!   device counters measured (read bytes up to 2.3× the one-list prediction).

use std::collections::HashMap;

/// Which pages a bounded cache reclaims (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Policy {
    /// One LRU list. The default: behind the caches measured so far it is the closer
    /// (docs/placement.md, "Behind a cache smaller than the slow working set").
    #[default]
    Lru,
    /// The kernel's active and inactive lists.
    TwoList,
}

/// A page of one structure file.
pub type Key = (u32, u64);

const NIL: u32 = u32::MAX;
const INACTIVE: usize = 0;
const ACTIVE: usize = 1;

#[derive(Debug, Clone, Copy)]
struct Node {
    key: Key,
    prev: u32,
    next: u32,
    list: u8,
    referenced: bool,
}

/// A doubly linked list's ends (head: most recent) and length.
#[derive(Debug, Clone, Copy)]
struct Ends {
    head: u32,
    tail: u32,
    len: u64,
}

const EMPTY: Ends = Ends {
    head: NIL,
    tail: NIL,
    len: 0,
};

/// The page cache: unbounded (`capacity` `None`: nothing is ever evicted) or bounded
/// to `capacity` pages under `policy`.
#[derive(Debug)]
pub struct Cache {
    capacity: Option<u64>,
    policy: Policy,
    index: HashMap<Key, u32>,
    nodes: Vec<Node>,
    free: Vec<u32>,
    lists: [Ends; 2],
}

impl Cache {
    pub fn new(capacity: Option<u64>, policy: Policy) -> Self {
        Cache {
            capacity,
            policy,
            index: HashMap::new(),
            nodes: Vec::new(),
            free: Vec::new(),
            lists: [EMPTY; 2],
        }
    }

    pub fn contains(&self, k: &Key) -> bool {
        self.index.contains_key(k)
    }

    /// Pages cached.
    pub fn len(&self) -> u64 {
        self.index.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    pub fn clear(&mut self) {
        self.index.clear();
        self.nodes.clear();
        self.free.clear();
        self.lists = [EMPTY; 2];
    }

    fn unlink(&mut self, i: u32) {
        let n = self.nodes[i as usize];
        let l = &mut self.lists[n.list as usize];
        match n.prev {
            NIL => l.head = n.next,
            p => self.nodes[p as usize].next = n.next,
        }
        match n.next {
            NIL => self.lists[n.list as usize].tail = n.prev,
            q => self.nodes[q as usize].prev = n.prev,
        }
        self.lists[n.list as usize].len -= 1;
    }

    fn push_head(&mut self, i: u32, list: usize) {
        let head = self.lists[list].head;
        {
            let n = &mut self.nodes[i as usize];
            n.prev = NIL;
            n.next = head;
            n.list = list as u8;
        }
        match head {
            NIL => self.lists[list].tail = i,
            h => self.nodes[h as usize].prev = i,
        }
        self.lists[list].head = i;
        self.lists[list].len += 1;
    }

    /// A page read from the device: inserted (at the inactive head; `touched`: the
    /// faulting page, its bit set). Pages evicted to make room go to `evicted`.
    pub fn insert(&mut self, k: Key, touched: bool, evicted: &mut Vec<Key>) {
        if let Some(&i) = self.index.get(&k) {
            self.touch_at(i, touched);
            return;
        }
        let node = Node {
            key: k,
            prev: NIL,
            next: NIL,
            list: INACTIVE as u8,
            referenced: touched,
        };
        let i = match self.free.pop() {
            Some(i) => {
                self.nodes[i as usize] = node;
                i
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        };
        self.index.insert(k, i);
        if self.capacity.is_none() {
            return;
        }
        self.push_head(i, INACTIVE);
        self.reclaim(evicted);
    }

    /// A touch of a cached page through the mapping (nothing when it is not cached).
    pub fn touch(&mut self, k: &Key) {
        if let Some(&i) = self.index.get(k) {
            self.touch_at(i, true);
        }
    }

    fn touch_at(&mut self, i: u32, touched: bool) {
        if !touched || self.capacity.is_none() {
            return;
        }
        match self.policy {
            Policy::Lru => {
                self.unlink(i);
                self.push_head(i, INACTIVE);
            }
            Policy::TwoList => self.nodes[i as usize].referenced = true,
        }
    }

    fn evict(&mut self, i: u32, evicted: &mut Vec<Key>) {
        self.unlink(i);
        let k = self.nodes[i as usize].key;
        self.index.remove(&k);
        self.free.push(i);
        evicted.push(k);
    }

    /// Brings the cache back within its capacity.
    fn reclaim(&mut self, evicted: &mut Vec<Key>) {
        let Some(cap) = self.capacity else {
            return;
        };
        while self.len() > cap {
            match self.policy {
                Policy::Lru => {
                    let t = self.lists[INACTIVE].tail;
                    self.evict(t, evicted);
                }
                Policy::TwoList => {
                    // Deactivate while the active list is the larger.
                    while self.lists[ACTIVE].len > self.lists[INACTIVE].len {
                        let t = self.lists[ACTIVE].tail;
                        self.unlink(t);
                        self.nodes[t as usize].referenced = false;
                        self.push_head(t, INACTIVE);
                    }
                    let t = self.lists[INACTIVE].tail;
                    if self.nodes[t as usize].referenced {
                        self.unlink(t);
                        self.nodes[t as usize].referenced = false;
                        self.push_head(t, ACTIVE);
                    } else {
                        self.evict(t, evicted);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads a, b, c (untouched), touches a, then reads d, e, f, touches e and f, and
    /// reads g, in a cache of 3 pages: the pages evicted, in order.
    fn evictions(policy: Policy) -> (Vec<Key>, Vec<Key>) {
        let page = |c: u8| (0u32, u64::from(c));
        let mut c = Cache::new(Some(3), policy);
        let mut ev = Vec::new();
        for x in [b'a', b'b', b'c'] {
            c.insert(page(x), false, &mut ev);
        }
        c.touch(&page(b'a'));
        for x in [b'd', b'e', b'f'] {
            c.insert(page(x), false, &mut ev);
        }
        c.touch(&page(b'e'));
        c.touch(&page(b'f'));
        c.insert(page(b'g'), false, &mut ev);
        let mut kept: Vec<Key> = c.index.keys().copied().collect();
        kept.sort_unstable();
        (ev, kept)
    }

    #[test]
    fn lru_evicts_the_least_recently_used() {
        // By hand: a b c → touch a: (old → new) b c a; d evicts b; e evicts c; f evicts a
        // (d e f); touching e, f: d e f; g evicts d.
        let (ev, kept) = evictions(Policy::Lru);
        let p = |c: u8| (0u32, u64::from(c));
        assert_eq!(ev, vec![p(b'b'), p(b'c'), p(b'a'), p(b'd')]);
        assert_eq!(kept, vec![p(b'e'), p(b'f'), p(b'g')]);
    }

    #[test]
    fn two_lists_reclaim_untouched_pages_first_and_keep_used_ones_active() {
        // By hand: a b c on the inactive list, a touched. d: over by one; the tail a is
        // referenced → active; b untouched → evicted. e: tail c → evicted. f: tail d →
        // evicted (inactive e f, active a). Touch e, f. g: inactive g f e; tail e
        // referenced → active (e a); tail f referenced → active (f e a); the active list
        // (3) now outgrows the inactive one (g): its tail a is deactivated (bit cleared)
        // to the inactive head (a g); the tail g, read and never touched, is evicted —
        // where the one list evicts d and keeps g.
        let (ev, kept) = evictions(Policy::TwoList);
        let p = |c: u8| (0u32, u64::from(c));
        assert_eq!(ev, vec![p(b'b'), p(b'c'), p(b'd'), p(b'g')]);
        assert_eq!(kept, vec![p(b'a'), p(b'e'), p(b'f')]);
    }

    #[test]
    fn unbounded_cache_evicts_nothing() {
        let mut c = Cache::new(None, Policy::TwoList);
        let mut ev = Vec::new();
        for p in 0..1000 {
            c.insert((1, p), p % 2 == 0, &mut ev);
            c.touch(&(1, p / 2));
        }
        assert!(ev.is_empty());
        assert_eq!(c.len(), 1000);
        c.clear();
        assert!(c.is_empty() && !c.contains(&(1, 3)));
    }

    #[test]
    fn a_cache_of_no_pages_keeps_nothing() {
        for policy in [Policy::Lru, Policy::TwoList] {
            let mut c = Cache::new(Some(0), policy);
            let mut ev = Vec::new();
            c.insert((0, 1), true, &mut ev);
            c.insert((0, 2), false, &mut ev);
            assert_eq!(ev, vec![(0, 1), (0, 2)], "{policy:?}");
            assert!(c.is_empty());
        }
    }
}
