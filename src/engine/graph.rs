//! Boards that are graphs: nodes joined by edges (sea lanes, space routes, tracks).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

/// An undirected graph over nodes `0..n`, with sorted adjacency lists (deterministic order).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Graph {
    adjacency: Vec<Vec<usize>>,
}

impl Graph {
    pub fn new(nodes: usize) -> Graph {
        Graph {
            adjacency: vec![Vec::new(); nodes],
        }
    }

    /// Builds a graph from edges; `None` if an edge names a node out of range.
    pub fn from_edges(nodes: usize, edges: &[(usize, usize)]) -> Option<Graph> {
        let mut g = Graph::new(nodes);
        for &(a, b) in edges {
            if a >= nodes || b >= nodes {
                return None;
            }
            g.add_edge(a, b);
        }
        Some(g)
    }

    pub fn add_edge(&mut self, a: usize, b: usize) {
        if a == b || a >= self.adjacency.len() || b >= self.adjacency.len() {
            return;
        }
        for (x, y) in [(a, b), (b, a)] {
            if let Err(i) = self.adjacency[x].binary_search(&y) {
                self.adjacency[x].insert(i, y);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.adjacency.len()
    }

    pub fn is_empty(&self) -> bool {
        self.adjacency.is_empty()
    }

    pub fn neighbors(&self, node: usize) -> &[usize] {
        self.adjacency.get(node).map_or(&[], Vec::as_slice)
    }

    pub fn is_adjacent(&self, a: usize, b: usize) -> bool {
        self.neighbors(a).binary_search(&b).is_ok()
    }

    /// Hop counts from `start` to every node (`None` where unreachable).
    pub fn distances(&self, start: usize) -> Vec<Option<u32>> {
        let mut dist = vec![None; self.len()];
        if start >= self.len() {
            return dist;
        }
        dist[start] = Some(0);
        let mut queue = VecDeque::from([start]);
        while let Some(n) = queue.pop_front() {
            let d = dist[n].unwrap_or(0);
            for &m in self.neighbors(n) {
                if dist[m].is_none() {
                    dist[m] = Some(d + 1);
                    queue.push_back(m);
                }
            }
        }
        dist
    }

    /// Every node reachable from every other.
    pub fn is_connected(&self) -> bool {
        self.is_empty() || self.distances(0).iter().all(Option::is_some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_connectivity() {
        let g = Graph::from_edges(4, &[(0, 1), (1, 2)]).unwrap();
        assert_eq!(g.distances(0), vec![Some(0), Some(1), Some(2), None]);
        assert!(!g.is_connected());
        assert!(Graph::from_edges(2, &[(0, 5)]).is_none());
    }
}
