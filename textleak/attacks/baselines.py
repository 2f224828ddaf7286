"""Baseline reconstruction attacks: embedding inversion, inversion BERT, mask-token inference.

- ``embedding_inversion`` (Qu et al. 2021): the candidate original nearest to y in embedding space
  among those that can produce y. y itself is always such a candidate, so this predicts y: its ASR
  is the fraction of targets the sanitizer left unchanged (as in Tong et al.'s code).
- ``inversion_bert`` (after Kugler et al. 2021): ``mode="contextual"`` (default) learns to map each
  sanitized position, read in its sanitized sentence, to its original word, from shadow
  sanitizations. Offline on a CPU (default) the encoder (all-MiniLM-L6-v2) stays frozen and only a
  softmax head over the mechanism's sensitive vocabulary (and the shadow originals) is trained, on
  [contextual vector of the position; word vector of y]; the head starts as embedding inversion
  (class c scores v.phi(c) - |phi(c)|^2/2, the nearest word) and is held near that start by an L2
  term, so a short training moves it only where the shadow data shows something.
  ``finetune=True`` fine-tunes the whole encoder (a GPU job; ``model="bert-base-uncased"``).
  ``mode="token_only"`` is what Tong et al.'s code trains (one classifier per output type y on the
  isolated token y, pitfall 24): that model can at best learn the majority original of y in the
  shadow data, so it is computed exactly as that majority vote, without a model.
- ``mask_inference`` (Yue et al. 2021): predict the word at the target from the sanitized sentence,
  knowing nothing of the mechanism. The papers use pretrained ``bert-base-uncased`` ([MASK], top-1);
  ``model="lm"`` (default offline) asks the packaged Gemma 3 270M for its greedy next word after the
  sanitized words before the target (a causal model reads only the left side). ``model=<masked LM>``
  (a Hub id or path with an MLM head) is the papers' version. Targets whose original is not a
  single vocabulary token of a masked LM cannot be predicted and count as failures (reported as
  ``unrepresentable``).
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict

import numpy as np

from textleak.attacks.base import Attack, AttackData
from textleak.attacks.models import device_of, load_encoder, train
from textleak.registry import attacks

logger = logging.getLogger(__name__)


@attacks.register("embedding_inversion")
class EmbeddingInversion(Attack):
    name = "embedding_inversion"

    def predict(self, data: AttackData, chunk: int = 256) -> list[str]:
        mech = data.mechanism
        outputs = data.target_outputs()
        uniq = sorted({y for y in outputs if mech.word_id(y) >= 0})
        guess_of: dict[str, str] = {}
        for start in range(0, len(uniq), chunk):
            ys = uniq[start:start + chunk]
            ids = np.asarray([mech.word_id(y) for y in ys])
            y_vecs = mech.vectors_of(ids)
            for y, v, lk in zip(ys, y_vecs, mech.likelihood_lists(ids)):
                cand = lk.ids[lk.probs > 0]  # only words that can produce y
                if not len(cand):
                    continue
                d = np.sqrt(((mech.vectors_of(cand) - v) ** 2).sum(axis=1))
                guess_of[y] = mech.words[int(cand[np.lexsort((cand, d))[0]])]
        return [guess_of.get(y, y) for y in outputs]


@attacks.register("inversion_bert")
class InversionBert(Attack):
    name = "inversion_bert"

    def __init__(self, mode: str = "contextual", model: str = "default", finetune: bool = False, epochs: int = 4,
                 batch_size: int = 256, lr: float | None = None, max_length: int = 128, num_layers: int | None = None,
                 seed: int = 0):
        self.num_layers = num_layers
        if mode not in ("contextual", "token_only"):
            raise ValueError(f"mode must be 'contextual' or 'token_only', got {mode!r}")
        self.mode = mode
        self.model = model
        self.finetune = finetune
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr
        self.max_length = max_length
        self.seed = seed
        self.train_losses: list[float] = []

    def _training_examples(self, data: AttackData):
        mech = data.mechanism
        for original, sanitizations in zip(data.shadow_original, data.shadow_sanitized()):
            for sanitized, flags in sanitizations:
                yield [mech.key(t) for t in original], sanitized, flags

    def predict(self, data: AttackData) -> list[str]:
        if self.mode == "token_only":
            votes: dict[str, Counter] = defaultdict(Counter)
            for original, sanitized, flags in self._training_examples(data):
                for o, s, f in zip(original, sanitized, flags):
                    if f:
                        votes[s][o] += 1
            # no shadow evidence for y: guess y (what a classifier with no training data cannot beat)
            return [votes[y].most_common(1)[0][0] if votes.get(y) else y for y in data.target_outputs()]
        return self._contextual(data) if self.finetune else self._frozen(data)

    # ---- frozen encoder + trained head (offline default) -----------------------------------------
    def _encode_words(self, tokenizer, encoder, token_lists, batch: int = 64) -> list[np.ndarray]:
        """Per sentence, the encoder's last hidden state at the first piece of each word (zeros past truncation)."""
        import torch

        out = []
        with torch.no_grad():
            for s in range(0, len(token_lists), batch):
                chunk = [list(t) for t in token_lists[s:s + batch]]
                enc = tokenizer(chunk, is_split_into_words=True, truncation=True, max_length=self.max_length,
                                padding=True, return_tensors="pt")
                hidden = encoder(**enc.to(device_of(encoder))).last_hidden_state.float().cpu().numpy()
                for b, words in enumerate(chunk):
                    feats = np.zeros((len(words), hidden.shape[-1]), dtype=np.float32)
                    seen = set()
                    for t, w in enumerate(enc.word_ids(b)):
                        if w is not None and w not in seen:
                            seen.add(w)
                            feats[w] = hidden[b, t]
                    out.append(feats)
        return out

    def _word_vectors(self, mech, words: list[str]) -> np.ndarray:
        emb = mech.embeddings
        out = np.zeros((len(words), emb.dim), dtype=np.float32)
        for j, w in enumerate(words):
            row = emb.index.get(emb.key(w))
            if row is not None:
                out[j] = emb.vectors[row]
        return out

    def _frozen(self, data: AttackData) -> list[str]:
        import torch
        from transformers import AutoModel, AutoTokenizer

        from textleak.attacks.models import resolve_model_path

        mech = data.mechanism
        examples = list(self._training_examples(data))
        seen = {o for original, _, flags in examples for o, f in zip(original, flags) if f}
        if not seen:
            raise ValueError("inversion_bert: the shadow sanitizations contain no sensitive token to learn from")
        # the label space: every sensitive word the mechanism was fitted on (the inputs it can see), and the shadow originals
        fitted = {mech.key(w) for w in getattr(mech, "corpus_words", []) if mech.word_id(w) >= 0 and mech.is_sensitive(w)}
        classes = sorted(seen | fitted)
        class_of = {c: i for i, c in enumerate(classes)}
        path = resolve_model_path(self.model)
        tokenizer = AutoTokenizer.from_pretrained(path)
        encoder = AutoModel.from_pretrained(path).eval()
        # training rows: every sensitive shadow position; features [contextual vector; word vector of y]
        sents = [s for _, s, _ in examples]
        ctx = self._encode_words(tokenizer, encoder, sents)
        rows, labels = [], []
        for (original, sanitized, flags), feats in zip(examples, ctx):
            for i, f in enumerate(flags):
                if f:
                    rows.append((feats[i], sanitized[i]))
                    labels.append(class_of[original[i]])
        x_ctx = np.stack([r[0] for r in rows])
        x_word = self._word_vectors(mech, [r[1] for r in rows])
        # the head starts as embedding inversion over the classes: argmax v.phi(c) - |phi(c)|^2 / 2
        phi = self._word_vectors(mech, classes)
        torch.manual_seed(self.seed)
        head = torch.nn.Linear(x_ctx.shape[1] + phi.shape[1], len(classes))
        with torch.no_grad():
            head.weight.zero_()
            head.weight[:, x_ctx.shape[1]:] = torch.from_numpy(phi)
            head.bias.copy_(torch.from_numpy(-0.5 * (phi ** 2).sum(axis=1)))
        x = torch.from_numpy(np.concatenate([x_ctx, x_word], axis=1))
        y = torch.tensor(labels)
        init = [t.detach().clone() for t in head.parameters()]
        optimizer = torch.optim.Adam(head.parameters(), lr=self.lr or 1e-3)
        rng = np.random.default_rng(self.seed)
        self.train_losses = []
        for _ in range(self.epochs):
            order, total = rng.permutation(len(y)), 0.0
            for s in range(0, len(order), self.batch_size):
                idx = torch.from_numpy(order[s:s + self.batch_size])
                loss = torch.nn.functional.cross_entropy(head(x[idx]), y[idx])
                # stay near the embedding-inversion start where the shadow data says little (rare classes)
                loss = loss + 1e-3 * sum(((t - t0) ** 2).sum() for t, t0 in zip(head.parameters(), init))
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += float(loss.detach()) * len(idx)
            self.train_losses.append(total / len(y))
        logger.info("inversion_bert: head over %d classes, %d shadow rows, loss by epoch %s", len(classes), len(y),
                    [round(v, 3) for v in self.train_losses])
        records = sorted({r for r, _ in data.targets})
        feats = dict(zip(records, self._encode_words(tokenizer, encoder, [data.private_sanitized[r] for r in records])))
        t_ctx = np.stack([feats[r][i] for r, i in data.targets])
        t_word = self._word_vectors(mech, data.target_outputs())
        with torch.no_grad():
            pred = head(torch.from_numpy(np.concatenate([t_ctx, t_word], axis=1))).argmax(dim=1).numpy()
        return [classes[int(c)] for c in pred]

    # ---- full fine-tuning (GPU) -----------------------------------------------------------------
    def _contextual(self, data: AttackData) -> list[str]:
        import torch

        examples = list(self._training_examples(data))
        classes = sorted({o for original, _, flags in examples for o, f in zip(original, flags) if f})
        if not classes:
            raise ValueError("inversion_bert: the shadow sanitizations contain no sensitive token to learn from")
        class_of = {c: i for i, c in enumerate(classes)}
        tokenizer, model = load_encoder(self.model, "token", len(classes), self.seed, self.num_layers)

        def encode(word_lists, label_lists=None):
            enc = tokenizer(word_lists, is_split_into_words=True, truncation=True, max_length=self.max_length,
                            padding=True, return_tensors="pt")
            if label_lists is None:
                return enc, None
            labels = torch.full(enc["input_ids"].shape, -100)
            for b, lab in enumerate(label_lists):
                seen = set()
                for t, w in enumerate(enc.word_ids(b)):
                    if w is not None and w not in seen:
                        seen.add(w)
                        labels[b, t] = lab[w]
            return enc, labels

        rows = [(sanitized, [class_of[o] if f else -100 for o, f in zip(original, flags)])
                for original, sanitized, flags in examples]

        def batches(rng):
            order = rng.permutation(len(rows))
            for s in range(0, len(order), self.batch_size):
                chunk = [rows[i] for i in order[s:s + self.batch_size]]
                enc, labels = encode([r[0] for r in chunk], [r[1] for r in chunk])
                yield {**enc, "labels": labels}

        self.train_losses = train(model, batches, self.epochs, self.lr or 1e-4, self.seed, desc="inversion BERT")
        guesses: list[str] = []
        with torch.no_grad():
            for s in range(0, len(data.targets), 64):
                chunk = data.targets[s:s + 64]
                enc, _ = encode([data.private_sanitized[r] for r, _ in chunk])
                logits = model(**enc.to(device_of(model))).logits
                for b, (r, i) in enumerate(chunk):
                    tok = next((t for t, w in enumerate(enc.word_ids(b)) if w == i), None)
                    guesses.append(data.private_sanitized[r][i] if tok is None else classes[int(logits[b, tok].argmax())])
        return guesses


@attacks.register("mask_inference")
class MaskInference(Attack):
    name = "mask_inference"

    def __init__(self, model: str = "lm", llm: str = "embedded", max_left_words: int = 48, fit_steps: int = 0,
                 batch_size: int = 32, lr: float = 1e-4, max_length: int = 64, num_layers: int | None = None, seed: int = 0):
        self.num_layers = num_layers
        self.model = model
        self.llm = llm
        self.max_left_words = max_left_words
        self.fit_steps = fit_steps
        self.batch_size = batch_size
        self.lr = lr
        self.max_length = max_length
        self.seed = seed
        self.unrepresentable = 0

    def _fit(self, tokenizer, model, data: AttackData) -> None:
        import torch
        from transformers import DataCollatorForLanguageModeling

        texts = [" ".join(t) for t in data.shadow_original if t]
        if not texts:
            raise ValueError("mask_inference: fit_steps > 0 needs shadow originals")
        collator = DataCollatorForLanguageModeling(tokenizer, mlm_probability=0.15, return_tensors="pt")
        torch.manual_seed(self.seed)

        def batches(rng):
            for _ in range(self.fit_steps):
                idx = rng.choice(len(texts), size=min(self.batch_size, len(texts)), replace=False)
                enc = [tokenizer(texts[i], truncation=True, max_length=self.max_length) for i in idx]
                yield dict(collator(enc))

        train(model, batches, 1, self.lr, self.seed, desc="MLM fit on shadow originals")

    def predict(self, data: AttackData) -> list[str]:
        if self.model == "lm":
            return self._predict_causal(data)
        return self._predict_masked(data)

    def _predict_causal(self, data: AttackData) -> list[str]:
        """The language model's next word after the sanitized words before the target (one forward
        pass per sentence with a local model; its likeliest word-initial piece, so a word the model
        spells in several pieces cannot be predicted, like a word outside BERT's vocabulary)."""
        from textleak.attacks.lm_context import ContextScorer

        records = sorted({r for r, _ in data.targets})
        row_of = {r: j for j, r in enumerate(records)}
        words = ContextScorer(self.llm, max_left_words=self.max_left_words).next_words(
            [data.private_sanitized[r] for r in records], [(row_of[r], i) for r, i in data.targets],
            desc=f"mask_inference ({len(data.targets)} targets)")
        tok = data.mechanism.tokenizer
        return [(tok.tokens(w) or [""])[0] for w in words]

    def _predict_masked(self, data: AttackData) -> list[str]:
        import torch

        tokenizer, model = load_encoder(self.model, "mlm", seed=self.seed, num_layers=self.num_layers)
        if self.fit_steps:
            self._fit(tokenizer, model, data)
        model.eval()
        vocab = tokenizer.get_vocab()
        lower = bool(getattr(tokenizer, "do_lower_case", False))
        self.unrepresentable = sum(
            (o.lower() if lower else o) not in vocab for o in data.target_originals())
        guesses: list[str] = []
        with torch.no_grad():
            for s in range(0, len(data.targets), self.batch_size):
                chunk = data.targets[s:s + self.batch_size]
                texts = [" ".join(data.private_sanitized[r][:i] + [tokenizer.mask_token] + data.private_sanitized[r][i + 1:])
                         for r, i in chunk]
                enc = tokenizer(texts, truncation=True, max_length=self.max_length, padding=True, return_tensors="pt")
                logits = model(**enc.to(device_of(model))).logits
                for b in range(len(chunk)):
                    where = (enc["input_ids"][b] == tokenizer.mask_token_id).nonzero()
                    if len(where) == 0:  # the mask fell beyond max_length: no guess, a failure
                        guesses.append("")
                        continue
                    guesses.append(tokenizer.convert_ids_to_tokens(int(logits[b, int(where[0])].argmax())))
        return guesses
