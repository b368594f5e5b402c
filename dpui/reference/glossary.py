"""The terms the pages use, each defined in one paragraph (the Glossary page renders them).

Pages link a term on first use with :func:`link`, e.g. ``glossary.link("coverage")``.
Definitions are markdown (``$...$`` math) and may cite papers with ``[@<key>]`` markers
(see :mod:`dpui.kit.references`).
"""

from __future__ import annotations

from dataclasses import dataclass

PAGE = "glossary"  # the URL path of pages/glossary.py


@dataclass(frozen=True)
class Term:
    key: str
    name: str
    definition: str


TERMS: tuple[Term, ...] = (
    Term(
        "differential-privacy",
        "Differential privacy (DP)",
        "A randomised algorithm $M$ is ε-differentially private if for any two *neighbouring* "
        "datasets $x, y$ (they differ in one person's data) and any set of outputs $S$, "
        "$\\Pr[M(x) \\in S] \\le e^{\\varepsilon} \\Pr[M(y) \\in S]$. Whatever one person "
        "contributes, the output's distribution barely changes, so the output reveals little "
        "about that person [@dwork-roth-2014]. Here a curator holds the true data and publishes "
        "a noisy histogram (*central* DP); compare LDP.",
    ),
    Term(
        "neighbours",
        "Neighbouring datasets",
        "Two datasets that differ in one person's data. Here $D'$ is $D$ without one person "
        "(Alice), so one bin's count is one lower. Differential privacy compares a mechanism's "
        "output distributions on every such pair [@dwork-roth-2014].",
    ),
    Term(
        "privacy-loss",
        "Privacy loss",
        "For an output $o$ of a mechanism on neighbours $D, D'$: "
        "$L(o) = \\ln \\Pr[M(D)=o] / \\Pr[M(D')=o]$, how much seeing $o$ shifts the log-odds "
        "that the data are $D$ rather than $D'$. ε-DP is exactly $|L(o)| \\le \\varepsilon$ for "
        "every output and every pair of neighbours; the Laplace and geometric mechanisms reach "
        "±ε, Gaussian noise exceeds ε on a tail [@dwork-roth-2014].",
    ),
    Term(
        "approximate-dp",
        "(ε, δ)-differential privacy",
        "The relaxation $\\Pr[M(D) \\in S] \\le e^{\\varepsilon} \\Pr[M(D') \\in S] + \\delta$: "
        "the privacy loss may exceed ε, with δ bounding how much probability that buys. The "
        "Gaussian mechanism is (ε, δ)-DP for $\\sigma$ large enough; the smallest such $\\sigma$ "
        "comes from the exact δ of Balle and Wang [@balle-wang-2018].",
    ),
    Term(
        "geometric-mechanism",
        "Geometric mechanism",
        "The Laplace mechanism on the integers: add noise $k$ with "
        "$\\Pr[k] \\propto e^{-\\varepsilon |k| / \\Delta}$, so releases stay whole numbers "
        "and the mechanism is ε-DP [@ghosh-2009].",
    ),
    Term(
        "epsilon",
        "ε (privacy budget)",
        "The parameter of differential privacy: smaller ε means stronger privacy and more "
        "noise. Budgets add up when the same data are used several times (sequential "
        "composition), so a release that measures a bin through several tree nodes spends the "
        "sum of their budgets $\\varepsilon_x$ along the path. The sidebar's ε is the total the "
        "release may spend; the Tree page shows the *release ε* its budgets actually spend "
        "(the largest sum over a root-to-leaf path).",
    ),
    Term(
        "sensitivity",
        "Sensitivity Δf",
        "The most a query's answer can change between neighbouring datasets, measured in the "
        "L1 norm: $\\Delta f = \\max \\lVert f(x) - f(y) \\rVert_1$. A histogram has Δf = 1 "
        "(one person is in one bin); a strategy matrix $A$ has the largest column L1 norm of $A$ "
        "(an interval tree of height h: h, one node per level). The Laplace mechanism's noise "
        "scale is Δf/ε.",
    ),
    Term(
        "laplace-mechanism",
        "Laplace mechanism",
        "Release $f(x) + Y$ with independent $Y_i \\sim \\mathrm{Lap}(b)$, density "
        "$e^{-|y|/b}/(2b)$, scale $b = \\Delta f/\\varepsilon$; it is ε-DP. Each noise value "
        "has variance $2b^2$ and $\\Pr[|Y| \\ge t b] = e^{-t}$ [@dwork-roth-2014].",
    ),
    Term(
        "exponential-mechanism",
        "Exponential mechanism",
        "Chooses one candidate $r$ out of a set $R$ with probability proportional to "
        "$\\exp(\\varepsilon\\, u(x, r) / (2\\Delta u))$, where $u$ scores how good $r$ is "
        "for the data and Δu is the score's sensitivity. Good candidates are exponentially "
        "more likely, and the choice is ε-DP [@mcsherry-talwar-2007].",
    ),
    Term(
        "range-query",
        "Range query",
        "The total count of a contiguous block of bins $[l, r]$ of a histogram, e.g. the "
        "number of people aged 30 to 39. All pages measure error on range queries.",
    ),
    Term(
        "workload",
        "Workload",
        "The set of range queries the analyst is assumed to ask, each equally likely: all "
        "ranges, prefix ranges $[1, r]$, all ranges of one length, or a list of ranges the "
        "user types (Tree & budgets). Coverage probabilities, "
        "the budgets optimal for either error and expected errors all depend on it, so "
        "every error number on these pages states its workload. Choosing what to measure "
        "for a given workload is the strategy optimisation of the matrix mechanism "
        "[@li-2010] and HDMM [@mckenna-2018].",
    ),
    Term(
        "interval-tree",
        "Interval tree, fan-out, height",
        "A tree whose nodes cover contiguous blocks of bins: the root covers every bin, each "
        "internal node splits its block into parts for its children (the *fan-out* k is the "
        "number of parts), and each leaf covers one bin. Releasing a noisy count per node lets "
        "a long range be answered from a few large nodes [@hay-2010]. The *height* Δ is the "
        "number of nodes on the longest root-to-leaf path. A larger fan-out makes the tree "
        "shorter (less noise per node) but needs more nodes per range; Qardaji, Yang and Li "
        "analyse this trade-off [@qardaji-2013].",
    ),
    Term(
        "canonical-decomposition",
        "Canonical decomposition",
        "The smallest set of tree nodes whose blocks exactly tile a range query: start at the "
        "root and take a node whole when the range covers it, otherwise descend into its "
        "children. The noisy answer of the range is the sum of these nodes' noisy counts, so "
        "its error is the sum of their noise variances.",
    ),
    Term(
        "coverage",
        "Coverage probability p_x",
        "The probability that a random range of the workload uses node $x$ in its canonical "
        "decomposition. Nodes with high $p_x$ are used often, so their noise hurts many "
        "answers: the per-node budget rule gives them more budget [@lue-dptree]. The expected "
        "raw error of a random range is $\\sum_x p_x \\cdot 2/\\varepsilon_x^2$.",
    ),
    Term(
        "budget-allocation",
        "Budget allocation",
        "How the total ε is split among the tree's nodes (each node $x$ gets $\\varepsilon_x$, "
        "and every root-to-leaf path may spend at most ε). *Uniform*: ε/Δ per node "
        "[@hay-2010]. *Per-level*: one budget per depth, $\\varepsilon_l \\propto P_l^{1/3}$ "
        "with $P_l$ the level's total coverage. *Per-node*: a closed form (Lagrange "
        "multipliers, computed bottom-up then top-down) that minimises the expected error of "
        "the *raw* tree [@lue-dptree]; it is not the optimum after BLUE consistency. "
        "*H_b* [@qardaji-2013]: the root not measured, ε/(Δ−1) on every other level. "
        "*Optimal after consistency*: budgets found by a numeric search on the exact error "
        "after BLUE, per level or per node.",
    ),
    Term(
        "heteroscedastic",
        "Heteroscedastic noise",
        "Noise whose variance differs from node to node (here because budgets $\\varepsilon_x$ "
        "differ). Consistency must then weight each node by its precision $\\varepsilon_x^2$.",
    ),
    Term(
        "blue",
        "BLUE, consistency",
        "The noisy node counts of a tree disagree (a parent is not the sum of its children). "
        "*Consistency* post-processes them into counts that add up; the *best linear unbiased "
        "estimate* (BLUE) is the consistent answer with the least variance: weighted least "
        "squares with weights $\\varepsilon_x^2$ [@hay-2010]. It costs no privacy "
        "(post-processing) and computes in O(n) on a tree.",
    ),
    Term(
        "mse",
        "MSE (mean squared error)",
        "The average of $(\\text{noisy answer} - \\text{true answer})^2$, over the noise and "
        "over the workload's queries. For unbiased noise it equals the variance; its unit is "
        "count². Pages show the exact (closed-form) MSE as lines and simulated MSE as points "
        "with 95% confidence intervals.",
    ),
    Term(
        "confidence-interval",
        "95% confidence interval",
        "A range computed from a simulation that contains the true expected value in about 95 "
        "of 100 repetitions of the simulation. A closed-form line should pass through most of "
        "the simulated intervals; if it does not, one of them is wrong.",
    ),
    Term(
        "matrix-mechanism",
        "Matrix mechanism: strategy A, reconstruction B",
        "A linear release measures $A v$ (the *strategy* $A$, e.g. the rows of a tree or of a "
        "wavelet transform) with Laplace noise of scale $\\Delta_A/\\varepsilon$, and "
        "reconstructs the histogram as $B(Av + \\text{noise})$ with $BA = I$. The error of a "
        "query $w$ is $(2\\Delta_A^2/\\varepsilon^2)\\, w^\\top B B^\\top w$ [@li-2010].",
    ),
    Term(
        "privelet",
        "Privelet (Haar wavelet)",
        "A matrix mechanism whose strategy is the Haar wavelet transform of the histogram "
        "padded to $N = 2^h$ bins; its sensitivity is h + 1 and any range's error grows only "
        "with $\\log^3 N$ [@xiao-2010].",
    ),
    Term(
        "accuracy-index",
        "Accuracy index",
        "For algorithms whose average range error grows like $\\mathrm{lb}^3 N$ (lb = log "
        "base 2), the limit of $\\mathrm{lb}^3 N / f(N)$ as N grows, in units of Lap(1) noise; "
        "higher is more accurate. It separates algorithms with the same big-O error [@wu-2018].",
    ),
    Term(
        "ldp",
        "Local differential privacy (LDP)",
        "Each user randomises their own data before sending it, so the collector never sees "
        "true values: a randomiser $R$ is ε-LDP if $\\Pr[R(a) = o] \\le e^{\\varepsilon} "
        "\\Pr[R(b) = o]$ for any two inputs $a, b$ and any output $o$. The collector then "
        "estimates population statistics (frequencies, means) from the noisy reports.",
    ),
    Term(
        "randomized-response",
        "Randomised response (GRR, unary encoding)",
        "The basic LDP randomisers. Generalised randomised response (GRR) reports the true item "
        "with probability $e^\\varepsilon/(e^\\varepsilon + d - 1)$ and each other of the d "
        "items otherwise. Unary encoding sends one bit per item, each flipped with a fixed "
        "probability [@erlingsson-2014].",
    ),
    Term(
        "key-value",
        "Key-value data, frequency and mean",
        "Each user holds a set of pairs ⟨key, value⟩ with values in [-1, 1] (e.g. apps and "
        "ratings). The collector estimates each key's *frequency* (the share of users holding "
        "it) and *mean* (the average value among those users) [@ye-2019].",
    ),
    Term(
        "padding-sampling",
        "Padding-and-sampling, truncation length",
        "A user with many pairs cannot report all of them under one budget. They pad their set "
        "with dummy pairs (or truncate it) to a fixed *truncation length* l and report one "
        "pair chosen at random; the collector scales the estimates back by l [@gu-2020].",
    ),
    Term(
        "relative-error",
        "Relative error (RE)",
        "The error of an estimate divided by the true value, averaged over the top-t most "
        "frequent keys; it compares keys of very different sizes on one scale.",
    ),
    Term(
        "membership-inference",
        "Membership inference (hypothesis test)",
        "Deciding from a release whether one person (Alice) is in the data: a test between "
        "$D$ (with her) and $D'$ (without). Its *false-positive rate* (FPR) is how often it "
        "says 'in' when she is out, its *true-positive rate* (TPR) how often it catches her; "
        "the ROC curve traces the best TPR at each FPR. Under ε-DP every test obeys "
        "$\\mathrm{TPR} \\le e^{\\varepsilon}\\mathrm{FPR}$ and "
        "$1-\\mathrm{FPR} \\ge e^{\\varepsilon}(1-\\mathrm{TPR})$ [@kairouz-2015], and a "
        "Bayesian attacker's odds move by at most $e^{\\pm\\varepsilon}$ "
        "[@wasserman-zhou-2010].",
    ),
    Term(
        "differencing-attack",
        "Differencing attack",
        "Two exact answers whose queries differ only in one person (a count of everyone, and "
        "of everyone but Alice) reveal that person by their difference. Noise on each answer, "
        "with the budget spent on both counted, is what stops it [@dwork-roth-2014].",
    ),
    Term(
        "composition",
        "Composition (privacy budget)",
        "Answering $k$ queries at $\\varepsilon_1, \\dots, \\varepsilon_k$ each is "
        "$(\\sum_i \\varepsilon_i)$-DP (*basic composition*), so ε is a budget that every "
        "answer spends: asking one count $k$ times at ε each costs $k\\varepsilon$, and the "
        "average of the answers converges to the true count [@dwork-roth-2014]. Splitting a "
        "total ε among queries (as the tree splits it among its nodes) trades one answer's "
        "error for another's.",
    ),
    Term(
        "zcdp",
        "Zero-concentrated DP (zCDP)",
        "A mechanism is ρ-zCDP when the Rényi divergence of order α between its outputs on "
        "neighbours is at most ρα for every α > 1. Gaussian noise of σ on a query of L2 "
        "sensitivity Δ is $\\Delta^2/(2\\sigma^2)$-zCDP, ρ adds up over queries, and ρ-zCDP "
        "implies $(\\rho + 2\\sqrt{\\rho \\ln(1/\\delta)}, \\delta)$-DP for every δ > 0 "
        "[@bun-steinke-2016]: the ε of k Gaussian answers grows like √k, not k.",
    ),
    Term(
        "reconstruction-attack",
        "Reconstruction attack",
        "Recovering a secret dataset (here n private bits) from many aggregate answers. "
        "Dinur and Nissim showed that answers to random subset sums with errors well below √n "
        "let least squares or linear programming recover almost every bit [@dinur-nissim-2003]; "
        "answers that are ε-DP with a modest total ε leave the attacker near chance.",
    ),
    Term(
        "privacy-audit",
        "Privacy audit",
        "Testing a mechanism's ε from its outputs alone: run it many times on two neighbouring "
        "inputs, pick an event $S$ on some runs and count it on the others; Clopper–Pearson "
        "bounds on the two probabilities give a lower bound "
        "$\\varepsilon \\ge \\ln \\frac{p_{lo} - \\delta}{p'_{hi}}$ that holds with a stated "
        "confidence [@bichsel-2021]. A bound above the claimed ε shows a violation; a bound "
        "below it proves nothing, since rare or unexamined events escape any finite number of "
        "runs [@ding-2018].",
    ),
    Term(
        "dpbench",
        "DPBench",
        "A protocol for comparing DP histogram algorithms fairly [@hay-2016]: a dataset's "
        "*shape* (its counts divided by their total) is kept apart from its *scale* (the number "
        "of records); each trial draws an input of that many records from the shape, every "
        "algorithm runs on the same input with noise of its own, and the algorithms are ranked "
        "by their *scaled error* on a workload of range queries. Changing the scale alone shows "
        "how the ranking turns as the data grow.",
    ),
    Term(
        "data-dependent",
        "Data-dependent algorithm",
        "An algorithm whose noise or structure depends on the data: it spends part of ε "
        "learning the histogram's shape (DAWA's buckets, MWEM's reweighting, AHP's clusters) and "
        "the rest measuring it, so its error has a *bias* (from approximating the shape) besides "
        "its noise. Data-*independent* algorithms (Identity, the hierarchical trees, Privelet) "
        "add noise that is the same for every input, with an expected error known in closed "
        "form. With few records per bin, learning the shape usually pays; with many, the "
        "noise is already small next to the counts and the learning's share of ε does not "
        "[@hay-2016].",
    ),
    Term(
        "scaled-error",
        "Scaled error",
        "DPBench's error measure: the mean absolute error of a workload's answers divided by "
        "the number of records, $\\lVert Wx - W\\hat x \\rVert_1 / (|W| \\cdot \\lVert x "
        "\\rVert_1)$, so that inputs of different sizes compare [@hay-2016]. Multiplied back by "
        "the number of records it is the expected error in records per query, the unit a "
        "recommendation is given in.",
    ),
    Term(
        "regret",
        "Regret",
        "An algorithm's error divided by the lowest error any algorithm reached in the same "
        "setting (data, scale, domain, ε, workload): 1 for the best, 3 for one with three times "
        "its error [@hay-2016]. Regret compares algorithms across settings whose errors differ "
        "by orders of magnitude; the average regret over settings says how much an algorithm "
        "loses when used without knowing which one wins.",
    ),
)

_KEYS = {term.key for term in TERMS}


def link(key: str, text: str | None = None) -> str:
    """Markdown link from ``text`` (default: the term's name) to its Glossary entry."""
    if key not in _KEYS:
        raise KeyError(key)
    name = text if text is not None else next(t.name for t in TERMS if t.key == key)
    return f"[{name}]({PAGE}?entry={key})"
