"""The one list of papers the product cites, and the citation markers that link to it.

Prose cites a paper with a marker ``[@<key>]`` (in ``assets/*.md``) or
``references.cite("hay-2010")`` (in page code). Both become a numbered link
``[n]`` to the paper's entry on the References page, so every "as in [n]"
resolves to one entry. Prose files are read through :func:`prose`, which
replaces the markers; an unknown key raises ``KeyError`` (and a test scans
every prose file for markers that do not resolve).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ASSETS = Path(__file__).resolve().parents[2] / "assets"
PAGE = "references"  # the URL path of pages/references.py
MARKER = re.compile(r"\[@([a-z0-9_-]+)\]")


@dataclass(frozen=True)
class Reference:
    key: str
    short: str
    authors: str
    title: str
    venue: str
    year: str
    used_for: str

    def text(self) -> str:
        """The entry as one markdown line: authors, "title", venue, year."""
        year = f", {self.year}" if self.year else ""
        return f'{self.authors}, "{self.title}", {self.venue}{year}.'


REFERENCES: tuple[Reference, ...] = (
    Reference(
        "dwork-roth-2014",
        "Dwork and Roth 2014",
        "Cynthia Dwork and Aaron Roth",
        "The algorithmic foundations of differential privacy",
        "Foundations and Trends in Theoretical Computer Science 9(3-4)",
        "2014",
        "ε-differential privacy, sensitivity, the Laplace and exponential mechanisms and their "
        "accuracy bounds (thms. 3.6, 3.8, 3.10, 3.11).",
    ),
    Reference(
        "ghosh-2009",
        "Ghosh, Roughgarden and Sundararajan 2009 (geometric mechanism)",
        "Arpita Ghosh, Tim Roughgarden and Mukund Sundararajan",
        "Universally utility-maximizing privacy mechanisms",
        "ACM STOC",
        "2009",
        "The geometric (discrete Laplace) mechanism: integer noise with P(k) ∝ e^(−ε|k|).",
    ),
    Reference(
        "balle-wang-2018",
        "Balle and Wang 2018 (analytic Gaussian mechanism)",
        "Borja Balle and Yu-Xiang Wang",
        "Improving the Gaussian mechanism for differential privacy: analytical calibration and "
        "optimal denoising",
        "ICML",
        "2018",
        "The exact δ of Gaussian noise at a given ε (thm. 8) and the smallest σ for (ε, δ).",
    ),
    Reference(
        "mcsherry-talwar-2007",
        "McSherry and Talwar 2007 (exponential mechanism)",
        "Frank McSherry and Kunal Talwar",
        "Mechanism design via differential privacy",
        "IEEE FOCS",
        "2007",
        "The exponential mechanism.",
    ),
    Reference(
        "hay-2010",
        "Hay et al. 2010 (Boost)",
        "Michael Hay, Vibhor Rastogi, Gerome Miklau and Dan Suciu",
        "Boosting the accuracy of differentially private histograms through consistency",
        "PVLDB 3(1) (VLDB)",
        "2010",
        "Boost: a k-ary tree with uniform budgets and least-squares (BLUE) consistency.",
    ),
    Reference(
        "xiao-2010",
        "Xiao et al. 2010 (Privelet)",
        "Xiaokui Xiao, Guozhang Wang and Johannes Gehrke",
        "Differential privacy via wavelet transforms",
        "IEEE ICDE",
        "2010",
        "Privelet: Laplace noise on Haar wavelet coefficients.",
    ),
    Reference(
        "li-2010",
        "Li et al. 2010 (matrix mechanism)",
        "Chao Li, Michael Hay, Vibhor Rastogi, Gerome Miklau and Andrew McGregor",
        "Optimizing linear counting queries under differential privacy",
        "ACM PODS",
        "2010",
        "The matrix mechanism: a strategy matrix A, noise, and reconstruction B with BA = I.",
    ),
    Reference(
        "qardaji-2013",
        "Qardaji et al. 2013 (hierarchical methods)",
        "Wahbeh Qardaji, Weining Yang and Ninghui Li",
        "Understanding hierarchical methods for differentially private histograms",
        "PVLDB 6(14) (VLDB)",
        "2013",
        "The fan-out minimising their estimate of a hierarchical method's average error, and "
        "the H_b rule (root not measured, then least squares).",
    ),
    Reference(
        "mckenna-2018",
        "McKenna et al. 2018 (HDMM)",
        "Ryan McKenna, Gerome Miklau, Michael Hay and Ashwin Machanavajjhala",
        "Optimizing error of high-dimensional statistical queries under differential privacy",
        "PVLDB 11(10) (VLDB)",
        "2018",
        "HDMM: optimised strategies for a workload, with the expected error tr(G M⁻¹).",
    ),
    Reference(
        "lue-dptree",
        "LUE-DPTree (thesis chapter 3)",
        "Author not printed in the available copy",
        "第3章 异方差加噪下的差分隐私直方图发布 [Chapter 3: Differentially private histogram "
        "publication with heteroscedastic noise]",
        "thesis chapter; institution and year not printed in the available copy",
        "",
        "LUE-DPTree: coverage probabilities, per-node budgets on any interval tree, BLUE "
        "consistency and Struct-Construct.",
    ),
    Reference(
        "wu-2018",
        "Wu et al. 2018 (error analysis of Privelet)",
        "吴英杰, 陈靖麟, 蔡剑平, 王一蕾 (Wu Yingjie, Chen Jinglin, Cai Jianping, Wang Yilei; "
        "Fuzhou University)",
        "矩阵机制下差分隐私数据发布方法的误差分析 [Error analysis of differentially private "
        "data publishing methods under the matrix mechanism]",
        "printed as 计算机与生活, no. 7",
        "2018",
        "Closed-form error of Privelet for any range and on average, and the O(lb³N) accuracy "
        "index.",
    ),
    Reference(
        "wang-kang",
        "Wang and Kang (Laplace and exponential accuracy)",
        "王骁识, 康海燕 (Wang Xiaoshi, Kang Haiyan; Beijing Information Science and Technology "
        "University)",
        "差分隐私中噪声添加与精度分析研究 [Research on noise addition and accuracy analysis in "
        "differential privacy]",
        "兰州理工大学学报 [Journal of Lanzhou University of Technology]",
        "year not printed in the available copy",
        "How loose the textbook accuracy bounds of the Laplace and exponential mechanisms are.",
    ),
    Reference(
        "zhang-hiskv",
        "Zhang et al. (HISKV)",
        "張嘯劍, 徐雅鑫, 付楠, 孟小峰 (Zhang Xiaojian, Xu Yaxin, Fu Nan, Meng Xiaofeng; Henan "
        "University of Economics and Law, Renmin University of China)",
        "HISKV [histogram-based key-value data collection and analysis under local differential "
        "privacy]",
        "title, venue and year not printed in the available copy",
        "",
        "HISKV; its formulas were lost from the available copy, so the product's HISKV is a "
        "labelled reconstruction.",
    ),
    Reference(
        "cormode-2019",
        "Cormode, Kulkarni and Srivastava 2019 (LDP range queries)",
        "Graham Cormode, Tejas Kulkarni and Divesh Srivastava",
        "Answering range queries under local differential privacy",
        "PVLDB 12(10) (VLDB)",
        "2019",
        "Hierarchical histograms HH_B with sampled levels and consistency, and HaarHRR, under "
        "local DP; the wavelet wins at small ε, the consistent tree at larger ε.",
    ),
    Reference(
        "du-2021",
        "Du et al. 2021 (AHEAD)",
        "Linkang Du, Zhikun Zhang, Shaojie Bai, Changchang Liu, Shouling Ji, Peng Cheng and "
        "Jiming Chen",
        "AHEAD: adaptive hierarchical decomposition for range query under local differential "
        "privacy",
        "ACM CCS",
        "2021",
        "An adaptive tree under local DP: a node is split only when its estimate passes a "
        "threshold (simulated on the local-DP range-query page).",
    ),
    Reference(
        "wang-2017",
        "Wang et al. 2017 (frequency oracles)",
        "Tianhao Wang, Jeremiah Blocki, Ninghui Li and Somesh Jha",
        "Locally differentially private protocols for frequency estimation",
        "USENIX Security",
        "2017",
        "The frequency oracles OUE and OLH and their exact variances.",
    ),
    Reference(
        "gu-2020",
        "Gu et al. 2020 (PCKV)",
        "Xiaolan Gu, Ming Li, Yueqiang Cheng, Li Xiong and Yang Cao",
        "PCKV: Locally differentially private correlated key-value data collection with "
        "optimized utility",
        "USENIX Security",
        "2020",
        "PCKV-GRR and PCKV-UE: padding-and-sampling, correlated key and value perturbation.",
    ),
    Reference(
        "ye-2019",
        "Ye et al. 2019 (PrivKV)",
        "Qingqing Ye, Haibo Hu, Xiaofeng Meng and Huadi Zheng",
        "PrivKV: Key-value data collection with local differential privacy",
        "IEEE S&P",
        "2019",
        "PrivKV and PrivKVM (iterative mean rounds).",
    ),
    Reference(
        "sun-2019",
        "Sun et al. 2019 (KVUE, KVOH)",
        "Lin Sun, Jun Zhao, Xiaojun Ye, Shuo Feng, Teng Wang and Tao Bai",
        "Conditional analysis for key-value data with local differential privacy",
        "arXiv:1907.05014",
        "2019",
        "KVUE and KVOH, the key-value baselines the HISKV paper compares with.",
    ),
    Reference(
        "nguyen-2016",
        "Nguyen et al. 2016 (Harmony)",
        "Thông T. Nguyên, Xiaokui Xiao, Yin Yang, Siu Cheung Hui, Hyejin Shin and Junbum Shin",
        "Collecting and analyzing data from smart device users with local differential privacy",
        "arXiv:1606.05053",
        "2016",
        "Harmony: mean estimation of values in [-1, 1] by discretise-then-randomise.",
    ),
    Reference(
        "erlingsson-2014",
        "Erlingsson et al. 2014 (RAPPOR)",
        "Úlfar Erlingsson, Vasyl Pihur and Aleksandra Korolova",
        "RAPPOR: Randomized aggregatable privacy-preserving ordinal response",
        "ACM CCS",
        "2014",
        "Randomised response on unary (one-hot) encodings; its basic one-time form is the "
        "symmetric unary encoding used here.",
    ),
    Reference(
        "kairouz-2015",
        "Kairouz, Oh and Viswanath 2015 (composition and hypothesis testing)",
        "Peter Kairouz, Sewoong Oh and Pramod Viswanath",
        "The composition theorem for differential privacy",
        "ICML",
        "2015",
        "ε-DP as a hypothesis test: every test's (FPR, TPR) satisfies TPR ≤ e^ε·FPR and "
        "1 − FPR ≥ e^ε·(1 − TPR) (thm. 2.1).",
    ),
    Reference(
        "wasserman-zhou-2010",
        "Wasserman and Zhou 2010",
        "Larry Wasserman and Shuheng Zhou",
        "A statistical framework for differential privacy",
        "Journal of the American Statistical Association 105(489)",
        "2010",
        "Differential privacy read as a limit on the power of tests of one person's presence.",
    ),
    Reference(
        "bun-steinke-2016",
        "Bun and Steinke 2016 (zero-concentrated DP)",
        "Mark Bun and Thomas Steinke",
        "Concentrated differential privacy: simplifications, extensions, and lower bounds",
        "Theory of Cryptography Conference (TCC)",
        "2016",
        "zCDP: Gaussian noise σ is Δ²/(2σ²)-zCDP (prop. 1.6), ρ adds up over queries (lemma "
        "1.7), and ρ-zCDP implies (ρ + 2√(ρ ln(1/δ)), δ)-DP (prop. 1.3).",
    ),
    Reference(
        "dinur-nissim-2003",
        "Dinur and Nissim 2003 (reconstruction)",
        "Irit Dinur and Kobbi Nissim",
        "Revealing information while preserving privacy",
        "ACM PODS",
        "2003",
        "Answers to many random subset sums, each with error well below √n, let an attacker "
        "reconstruct almost all of a secret bit vector.",
    ),
    Reference(
        "hay-2016",
        "Hay et al. 2016 (DPBench)",
        "Michael Hay, Ashwin Machanavajjhala, Gerome Miklau, Yan Chen and Dan Zhang",
        "Principled evaluation of differentially private algorithms using DPBench",
        "ACM SIGMOD",
        "2016",
        "The benchmark's protocol (shape, scale, domain; scaled per-query L1 error; regret) and "
        "its finding: data-dependent algorithms win at small scale, hierarchical ones at large.",
    ),
    Reference(
        "li-2014",
        "Li et al. 2014 (DAWA)",
        "Chao Li, Michael Hay, Gerome Miklau and Yue Wang",
        "A data- and workload-aware algorithm for range queries under differential privacy",
        "PVLDB 7(5)",
        "2014",
        "DAWA: a private L1 partition of the bins, then GreedyH, a workload-aware hierarchy.",
    ),
    Reference(
        "hardt-2012",
        "Hardt, Ligett and McSherry 2012 (MWEM)",
        "Moritz Hardt, Katrina Ligett and Frank McSherry",
        "A simple and practical algorithm for differentially private data release",
        "NIPS",
        "2012",
        "MWEM: the exponential mechanism picks a badly answered query, Laplace measures it, "
        "multiplicative weights update the estimate.",
    ),
    Reference(
        "acs-2012",
        "Ács, Castelluccia and Chen 2012 (EFPA, PHP)",
        "Gergely Ács, Claude Castelluccia and Rui Chen",
        "Differentially private histogram publishing through lossy compression",
        "IEEE ICDM",
        "2012",
        "EFPA (a private number of Fourier coefficients) and PHP (private hierarchical "
        "partitioning).",
    ),
    Reference(
        "zhang-2014",
        "Zhang et al. 2014 (AHP)",
        "Xiaojian Zhang, Rui Chen, Jianliang Xu, Xiaofeng Meng and Yingtao Xie",
        "Towards accurate histogram publication under differential privacy",
        "SIAM SDM",
        "2014",
        "AHP: noisy counts, thresholded and sorted, greedily clustered; clusters released.",
    ),
    Reference(
        "xu-2013",
        "Xu et al. 2013 (StructureFirst)",
        "Jia Xu, Zhenjie Zhang, Xiaokui Xiao, Yin Yang, Ge Yu and Marianne Winslett",
        "Differentially private histogram publication",
        "The VLDB Journal 22(6)",
        "2013",
        "StructureFirst: bucket boundaries of a v-optimal histogram chosen by the exponential "
        "mechanism, then noisy bucket counts.",
    ),
    Reference(
        "xiao-xiong-2010",
        "Xiao, Xiong and Yuan 2010 (DPCube)",
        "Yonghui Xiao, Li Xiong and Chun Yuan",
        "Differentially private data release through multidimensional partitioning",
        "Secure Data Management (VLDB workshop)",
        "2010",
        "DPCube: a noisy cell histogram, a kd-tree partition of it, noisy partition counts.",
    ),
    Reference(
        "cormode-2012",
        "Cormode et al. 2012 (spatial decompositions)",
        "Graham Cormode, Cecilia Procopiuc, Divesh Srivastava, Entong Shen and Ting Yu",
        "Differentially private spatial decompositions",
        "IEEE ICDE",
        "2012",
        "Quadtrees and kd-trees over 2-D data, the geometric per-level budgets, and exact "
        "least-squares consistency for one budget per level.",
    ),
    Reference(
        "ding-2018",
        "Ding et al. 2018 (StatDP)",
        "Zeyu Ding, Yuxin Wang, Guanhong Wang, Danfeng Zhang and Daniel Kifer",
        "Detecting violations of differential privacy",
        "ACM CCS",
        "2018",
        "Auditing a mechanism from its runs: an event chosen on separate runs, then a "
        "hypothesis test of the claimed ε; the buggy noisy max and sparse vector variants.",
    ),
    Reference(
        "bichsel-2021",
        "Bichsel et al. 2021 (DP-Sniper)",
        "Benjamin Bichsel, Samuel Steffen, Ilija Bogunovic and Martin Vechev",
        "DP-Sniper: black-box discovery of differential privacy violations using classifiers",
        "IEEE Symposium on Security and Privacy",
        "2021",
        "A lower bound on ε with Clopper–Pearson confidence from an event learned on separate "
        "runs; the gallery of correct and buggy mechanisms with their true ε.",
    ),
    Reference(
        "jagielski-2020",
        "Jagielski, Ullman and Oprea 2020 (auditing)",
        "Matthew Jagielski, Jonathan Ullman and Alina Oprea",
        "Auditing differentially private machine learning: how private is private SGD?",
        "NeurIPS",
        "2020",
        "The ε lower bound from a distinguisher's false positive and false negative rates, "
        "each with its Clopper–Pearson bound.",
    ),
    Reference(
        "clopper-pearson-1934",
        "Clopper and Pearson 1934",
        "C. J. Clopper and E. S. Pearson",
        "The use of confidence or fiducial limits illustrated in the case of the binomial",
        "Biometrika 26(4)",
        "1934",
        "Exact confidence bounds for a binomial proportion from Beta quantiles.",
    ),
    Reference(
        "lyu-2017",
        "Lyu, Su and Li 2017 (sparse vector)",
        "Min Lyu, Dong Su and Ninghui Li",
        "Understanding the sparse vector technique for differential privacy",
        "PVLDB 10(6)",
        "2017",
        "The sparse vector technique's variants, which of them are private, and at what ε.",
    ),
    Reference(
        "balcer-vadhan-2017",
        "Balcer and Vadhan 2017 (finite computers)",
        "Victor Balcer and Salil Vadhan",
        "Differential privacy on finite computers",
        "ITCS (arXiv 1709.05396)",
        "2018",
        "The truncated geometric sampled with integers only, and its exact ε ln(1 + 2^−k).",
    ),
    Reference(
        "mironov-2012",
        "Mironov 2012 (floating point)",
        "Ilya Mironov",
        "On significance of the least significant bits for differential privacy",
        "ACM CCS",
        "2012",
        "Laplace noise computed in floating point is not ε-DP: the output's last bits reveal "
        "the input; the snapping mechanism repairs it.",
    ),
)

_NUMBER = {ref.key: i for i, ref in enumerate(REFERENCES, start=1)}


def anchor(key: str) -> str:
    """The HTML id of a reference's entry on the References page."""
    return f"ref-{key}"


def number(key: str) -> int:
    """The 1-based number ``n`` shown as ``[n]``; ``KeyError`` for an unknown key."""
    return _NUMBER[key]


ENTRY = "entry"
"""Query parameter of a link to one entry of the References or Glossary page (the pages
scroll to it: Streamlit rewrites the address when a page loads, dropping a ``#fragment``)."""
_GLOSSARY_LINK = re.compile(r"\]\(glossary#([a-z0-9-]+)\)")


def cite(*keys: str) -> str:
    """Markdown link(s) ``[n]`` to the References page entries of ``keys``."""
    return "".join(f"[[{number(k)}]]({PAGE}?{ENTRY}={anchor(k)})" for k in keys)


def resolve(text: str) -> str:
    """Replace every ``[@<key>]`` marker in markdown ``text`` by its :func:`cite` link, and
    every link ``(glossary#term)`` by one that opens the Glossary at that term."""
    text = _GLOSSARY_LINK.sub(lambda m: f"](glossary?{ENTRY}={m.group(1)})", text)
    return MARKER.sub(lambda m: cite(m.group(1)), text)


def prose(name: str) -> str:
    """The teaching prose ``assets/<name>`` with its citation markers resolved."""
    return resolve((ASSETS / name).read_text(encoding="utf-8"))
