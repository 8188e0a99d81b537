"""Fixture authoring and acknowledgement forms. Field names are spec paths with '__' for '.'."""

from __future__ import annotations

import re
from typing import Any

from django import forms

from acceptance.models import AckStatus
from acceptance.selectors.fixtures import FAILURE_RECORD_LABELS, show_value
from acceptance.services.acknowledgements import OWNER_CONTACT_MISSING, OWNER_NAME_MISSING
from engine.domain import (
    COLLECTIVE_BACKENDS,
    COLLECTIVES,
    IB_ERROR_COUNTER_LABELS,
    IB_ERROR_COUNTERS,
    REQUIRABLE_KINDS,
)
from engine.evidence.fixtures import ADDED_DEFAULTS, Threshold, templates
from engine.evidence.fixtures.schema import (
    DCGM_WARN_POLICIES,
    FAILURE_RECORD_KEYS,
    FIELD_LABELS,
    FIXTURE_DTYPES,
    NCCL_DATATYPES,
    SCHEDULERS,
)
from engine.evidence.fixtures.thresholds import threshold_unit
from engine.formatting import data_size_whole

_SIZE = re.compile(r"^\s*(\d[\d,]*)\s*([KMGT]?)(?:i?B)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_ENV_LINE = re.compile(r"^([^=\s]+)=(.*)$")
COUNTER_LIMITS = "thresholds.ib_counter_max"
# Optional floats stored as the number typed (a whole number stays an int in the spec).
NUMBERS = (
    "thresholds__per_gpu_network_gbps",
    "thresholds__ib_rate_gbps",
    "thresholds__host_device_gbps_min",
    "thresholds__fabric_gbps_min",
    "thresholds__fabric_p99_latency_us_max",
    "thresholds__gpu_temp_limit_c",
    "thresholds__memory_temp_limit_c",
)
# A port's 64-bit extended counters reach far beyond this; a limit above it is a typing slip.
COUNTER_LIMIT_MAX = 10**12


class ByteSizeField(forms.CharField):
    """A byte count typed as 8, 64K, 1M or 8G (binary units, like nccl-tests)."""

    def to_python(self, value: Any) -> int | None:  # type: ignore[override]
        text = super().to_python(value)
        if not text:
            return None
        match = _SIZE.match(text)
        if not match:
            raise forms.ValidationError("Give a size such as 8, 64K, 1M or 8G.")
        return int(match.group(1).replace(",", "")) * _UNITS[match.group(2).upper()]

    def prepare_value(self, value: Any) -> Any:
        if not isinstance(value, int):
            return value
        return data_size_whole(value)


class EnvField(forms.CharField):
    """KEY=VALUE lines -> dict; blank lines and # comments are skipped."""

    widget = forms.Textarea(attrs={"rows": 4, "spellcheck": "false"})

    def to_python(self, value: Any) -> dict[str, str]:  # type: ignore[override]
        text = super().to_python(value) or ""
        env: dict[str, str] = {}
        for number, line in enumerate(text.splitlines(), start=1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            match = _ENV_LINE.match(line)
            if not match:
                raise forms.ValidationError(f"Line {number}: write KEY=VALUE, got {line!r}.")
            if match.group(1) in env:
                raise forms.ValidationError(f"Line {number}: {match.group(1)} is set twice.")
            env[match.group(1)] = match.group(2).strip()
        return env

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, dict):
            return "\n".join(f"{k}={v}" for k, v in sorted(value.items()))
        return value


def _number(value: float | None) -> int | float | None:
    if value is None:
        return None
    return int(value) if float(value).is_integer() else float(value)


class FixtureTemplateForm(forms.Form):
    template = forms.ChoiceField(
        choices=[(t.key, t.name) for t in templates()],
        widget=forms.RadioSelect,
        initial=templates()[0].key,
    )
    name = forms.CharField(
        required=False, max_length=200, help_text="Leave empty to use the template's title."
    )


def _label(path: str) -> str:
    """The shared label (validation messages use it too), capitalised for a form."""
    text = FIELD_LABELS[path]
    return text[:1].upper() + text[1:]


def _opt(label: str, help_text: str = "") -> forms.CharField:
    return forms.CharField(label=label, required=False, max_length=300, help_text=help_text)


def _int(label: str, minimum: int = 1, **kwargs: Any) -> forms.IntegerField:
    return forms.IntegerField(label=label, min_value=minimum, **kwargs)


def _choices(values: Any) -> list[tuple[str, str]]:
    return [(v, v) for v in sorted(values)]


class FixtureForm(forms.Form):
    """The structured editor. `initial` comes from the spec; `changes()` gives spec paths back."""

    name = forms.CharField(max_length=200)
    allocation__nodes = _int("Nodes")
    allocation__gpus_per_node = _int("GPUs per node", help_text="One worker (rank) per GPU.")
    allocation__max_leaf_switches = _int(
        "Max leaf switches", required=False, help_text="Empty: no placement limit."
    )
    runtime__container_image = _opt(
        "Container image", "Pin it by digest: registry/image@sha256:…; empty: not agreed."
    )
    runtime__driver_version = _opt("Host driver version", "e.g. 560.35.03")
    runtime__cuda_version = _opt("CUDA version", "e.g. 12.6")
    runtime__nccl_version = _opt("NCCL version", "e.g. 2.23.4")
    runtime__transport = _opt(
        "NCCL transport the test must use",
        "As NCCL_DEBUG=INFO prints it: IB (InfiniBand and RoCE) or Socket.",
    )
    runtime__env = EnvField(
        label="Required environment",
        required=False,
        help_text="One KEY=VALUE per line, e.g. NCCL_IB_HCA=mlx5_0,mlx5_1.",
    )
    runtime__os_image = _opt(
        "OS image",
        "As each node reports it (PRETTY_NAME of /etc/os-release; a Kubernetes Node's osImage), "
        "e.g. Ubuntu 22.04.5 LTS.",
    )
    runtime__scheduler = forms.ChoiceField(
        label="Scheduler", required=False, choices=[("", "not agreed"), *_choices(SCHEDULERS)]
    )
    runtime__kubernetes_version = _opt(
        "Kubernetes version", "Kubernetes only: the nodes' kubelet version, e.g. v1.30.4."
    )
    runtime__worker_node_spec = _opt(
        "Worker node spec",
        "Kubernetes only: a worker Node's node.kubernetes.io/instance-type label.",
    )
    runtime__collective_backend = forms.ChoiceField(
        label="Collective backend (NCCL GIN)",
        required=False,
        choices=[("", "not agreed"), *_choices(COLLECTIVE_BACKENDS)],
        help_text="As NCCL_DEBUG=INFO prints it: 'GIN/Plugin: Assigned plugin … type N'.",
    )
    tests__allreduce_fixture__count = _int("Elements per worker")
    tests__allreduce_fixture__dtype = forms.ChoiceField(
        label="Element type", choices=_choices(FIXTURE_DTYPES)
    )
    tests__allreduce_fixture__iterations = _int("All-reduce iterations")
    tests__allreduce_fixture__check_iterations = _int(
        "Checked iterations", help_text="The last N iterations are checked element by element."
    )
    tests__nccl_tests__collectives = forms.MultipleChoiceField(
        label="Collectives",
        choices=[(c, c) for c in COLLECTIVES],
        widget=forms.CheckboxSelectMultiple,
    )
    tests__nccl_tests__min_bytes = ByteSizeField(
        label=_label("tests.nccl_tests.min_bytes"), help_text="e.g. 8"
    )
    tests__nccl_tests__max_bytes = ByteSizeField(
        label=_label("tests.nccl_tests.max_bytes"), help_text="e.g. 8G"
    )
    tests__nccl_tests__step_factor = _int("Step factor (-f)", minimum=2)
    tests__nccl_tests__datatype = forms.ChoiceField(
        label="Datatype (-d)", choices=_choices(NCCL_DATATYPES)
    )
    tests__nccl_tests__iterations = _int("Iterations (-n)")
    tests__nccl_tests__warmup_iterations = _int("Warm-up iterations (-w)", minimum=0)
    tests__nccl_tests__check = _int(
        "Check iterations (-c)", minimum=0, help_text="0 skips the correctness check."
    )
    tests__nccl_tests__per_node = forms.BooleanField(
        label="Also run each node alone", required=False
    )
    tests__bisection = forms.BooleanField(
        label="Bisection: every node pair", required=False, help_text="Needs at least 2 nodes."
    )
    thresholds__large_message_bytes = ByteSizeField(label="Judge busbw from (message size)")
    thresholds__per_gpu_network_gbps = forms.FloatField(
        label="Network per GPU", required=False, min_value=0
    )
    thresholds__nvlink_class = _opt("NVLink class between GPU pairs")
    thresholds__rail_optimised = forms.BooleanField(label="Rail-optimised NICs", required=False)
    thresholds__dcgm_level = forms.IntegerField(label="DCGM diag level", min_value=1, max_value=4)
    thresholds__dcgm_warn_policy = forms.ChoiceField(
        label="A DCGM Warn counts as", choices=_choices(DCGM_WARN_POLICIES)
    )
    thresholds__ib_rate_gbps = forms.FloatField(label="IB port rate", required=False, min_value=0)
    thresholds__ib_ports_per_node = _int("IB ports per node", minimum=0, required=False)
    thresholds__ecc_uncorrected_max = _int("Uncorrected ECC errors allowed", minimum=0)
    thresholds__step_time_tolerance_pct = forms.FloatField(
        label="Straggler tolerance", min_value=0, max_value=100
    )
    thresholds__step_time_spread_pct = forms.FloatField(
        label="Step-time spread", min_value=0, max_value=100
    )
    thresholds__burnin_min_minutes = forms.FloatField(
        label="Workload runs at least", min_value=0.1, required=False
    )
    thresholds__step_time_tail_factor = forms.FloatField(
        label="Step-time tail (rank p95 ÷ run median)", min_value=1, required=False
    )
    # Pilot probe floors: empty means not agreed, and the probe is then not judged.
    thresholds__host_device_gbps_min = forms.FloatField(
        label="Pilot: slowest host-device copy (nvbandwidth) at least",
        required=False,
        min_value=0.01,
        help_text="Empty: no nvbandwidth check.",
    )
    thresholds__fabric_gbps_min = forms.FloatField(
        label="Pilot: slowest fabric bandwidth run (perftest) at least",
        required=False,
        min_value=0.01,
        help_text="Empty: no perftest bandwidth check.",
    )
    thresholds__fabric_p99_latency_us_max = forms.FloatField(
        label="Pilot: worst fabric p99 latency (perftest) at most",
        required=False,
        min_value=0.01,
        help_text="Empty: no perftest latency check.",
    )
    # Temperature limits for the GPU monitor capture: empty means not agreed, and not judged.
    thresholds__gpu_temp_limit_c = forms.FloatField(
        label="GPU temperature (nvidia-smi dmon) below",
        required=False,
        min_value=1,
        max_value=150,
        help_text="Empty: no GPU temperature check.",
    )
    thresholds__memory_temp_limit_c = forms.FloatField(
        label="Memory temperature (nvidia-smi dmon) below",
        required=False,
        min_value=1,
        max_value=150,
        help_text="Empty: no memory temperature check.",
    )
    required_evidence = forms.MultipleChoiceField(
        label="Required evidence files",
        choices=[(k, k) for k in REQUIRABLE_KINDS],
        widget=forms.CheckboxSelectMultiple,
    )

    SECTIONS: dict[str, str] = {
        "Allocation under test": "allocation__",
        "Runtime": "runtime__",
        "Rank-sum all-reduce": "tests__allreduce_fixture__",
        "nccl-tests sweep": "tests__nccl_tests__",
    }

    def __init__(
        self, *args: Any, spec: dict[str, Any], library: dict[str, Threshold], **kwargs: Any
    ) -> None:
        kwargs.setdefault("initial", self.initial_from(spec))
        super().__init__(*args, **kwargs)
        for path, default in ADDED_DEFAULTS.items():  # a spec stored before these fields
            self.initial.setdefault(path.replace(".", "__"), default)
        self.spec = spec
        self.library = library
        collectives = list(spec["tests"]["nccl_tests"]["collectives"])
        for name in [
            *collectives,
            *(k for k in spec["thresholds"]["busbw_gbps"] if k not in collectives),
        ]:
            self.fields[f"thresholds__busbw_gbps__{name}"] = forms.FloatField(
                label=f"{name} busbw",
                required=False,
                min_value=0,
                help_text="Empty: no floor for this collective.",
            )
            self.initial.setdefault(
                f"thresholds__busbw_gbps__{name}", spec["thresholds"]["busbw_gbps"].get(name)
            )
        self._add_counter_limits(spec)
        for key in FAILURE_RECORD_KEYS:
            self.fields[f"failure_record__{key}"] = forms.BooleanField(
                label=FAILURE_RECORD_LABELS.get(key, key), required=False
            )
            self.initial.setdefault(f"failure_record__{key}", spec["failure_record"].get(key))
        for name in self.threshold_names():
            # The table's row names the threshold once; the reason's box needs it as its name.
            reason = f"Reason for changing {self.fields[name].label}"
            self.fields[f"reason__{name}"] = forms.CharField(
                label="Reason",
                required=False,
                max_length=300,
                widget=forms.TextInput(attrs={"aria-label": reason}),
            )
        self.fields["tests__bisection"].disabled = False

    def _add_counter_limits(self, spec: dict[str, Any]) -> None:
        """One field per IB error counter: the most the burn-in may add to it (a spec stored
        before the limits existed shows the defaults the checks read)."""
        agreed = spec["thresholds"].get("ib_counter_max")
        table = agreed if isinstance(agreed, dict) else ADDED_DEFAULTS[COUNTER_LIMITS]
        for name in IB_ERROR_COUNTERS:
            label = f"{IB_ERROR_COUNTER_LABELS[name]} ({name})"
            field = f"thresholds__ib_counter_max__{name}"
            self.fields[field] = forms.IntegerField(
                label=label,
                required=False,
                min_value=0,
                max_value=COUNTER_LIMIT_MAX,
                help_text="Most the burn-in may add; empty: not judged.",
                error_messages={
                    "invalid": f"{label}: give a whole number of errors, or leave it empty.",
                    "min_value": f"{label}: give 0 or more errors.",
                    "max_value": f"{label}: give at most {COUNTER_LIMIT_MAX:,} errors.",
                },
            )
            self.initial.setdefault(field, table.get(name))

    @staticmethod
    def initial_from(spec: dict[str, Any]) -> dict[str, Any]:
        initial: dict[str, Any] = {
            "name": spec["name"],
            "required_evidence": spec["required_evidence"],
        }

        def walk(value: Any, prefix: str) -> None:
            for key, item in value.items():
                name = f"{prefix}__{key}"
                if isinstance(item, dict) and name not in (
                    "runtime__env",
                    "thresholds__busbw_gbps",
                ):
                    walk(item, name)
                else:
                    initial[name] = item

        for section in ("allocation", "runtime", "tests", "thresholds", "failure_record"):
            walk(spec[section], section)
        return initial

    def threshold_names(self) -> list[str]:
        """busbw floors first: they are what most buyers come to tune."""
        names = [n for n in self.fields if n.startswith("thresholds__")]
        return sorted(names, key=lambda n: not n.startswith("thresholds__busbw_gbps__"))

    def section(self, prefix: str) -> list[forms.BoundField]:
        return [self[n] for n in self.fields if n.startswith(prefix)]

    def sections(self) -> list[tuple[str, list[forms.BoundField]]]:
        return [(title, self.section(prefix)) for title, prefix in self.SECTIONS.items()]

    def threshold_rows(self) -> list[dict[str, Any]]:
        rows = []
        for name in self.threshold_names():
            path = name.replace("__", ".")
            lib = self.library.get(path) or self._counter_default(path)
            key = path.removeprefix("thresholds.")
            unit = threshold_unit(key)
            current = self.initial.get(name)
            rows.append(
                {
                    "field": self[name],
                    "reason": self[f"reason__{name}"],
                    "unit": unit,
                    "library": lib,
                    "library_text": show_value(key, lib.value if lib else None),
                    "differs": lib is not None and _differs(current, lib.value),
                }
            )
        return rows

    def _counter_default(self, path: str) -> Threshold | None:
        """A counter's library row, read from the library's limits for every counter."""
        table = self.library.get(COUNTER_LIMITS)
        if (
            table is None
            or not path.startswith(COUNTER_LIMITS + ".")
            or not isinstance(table.value, dict)
        ):
            return None
        name = path.rpartition(".")[2]
        return Threshold(path, table.value.get(name), table.unit, table.source)

    def failure_record_fields(self) -> list[forms.BoundField]:
        return self.section("failure_record__")

    def changes(self) -> dict[str, Any]:
        """{dotted spec path: value} for every editable field, ready for `fixture_save`."""
        data = self.cleaned_data
        out: dict[str, Any] = {}
        for name, value in data.items():
            if name.startswith("reason__"):
                continue
            if name in NUMBERS or (name.startswith("thresholds__busbw_gbps__")):
                value = _number(value)
            elif isinstance(value, str) and name.startswith(("runtime__", "thresholds__nvlink")):
                value = value.strip() or None
            out[name.replace("__", ".")] = value
        return out

    def reasons(self) -> dict[str, str]:
        return {
            name.removeprefix("reason__").replace("__", "."): value
            for name, value in self.cleaned_data.items()
            if name.startswith("reason__") and value
        }

    def field_for_path(self, path: str) -> str | None:
        """The form field that shows a spec path's error (or its nearest parent's)."""
        parts = re.sub(r"\[\d+\]", "", path).split(".")
        while parts:
            name = "__".join(parts)
            if name in self.fields:
                return name
            parts.pop()
        return None

    def add_spec_errors(self, errors: dict[str, list[str]]) -> None:
        for path, messages in errors.items():
            name = self.field_for_path(path)
            if name is None:
                self.add_error(None, [f"{path}: {m}" for m in messages])
            else:
                self.add_error(name, messages)


def _differs(current: Any, default: Any) -> bool:
    if isinstance(current, int | float) and isinstance(default, int | float):
        return abs(float(current) - float(default)) > 1e-9
    return current != default


class AcknowledgementForm(forms.Form):
    """The answer, and who owns incidents on the provider's side (when there are terms)."""

    status = forms.ChoiceField(
        choices=[
            (AckStatus.ACCEPTED, "Accept the fixture and the terms as they are"),
            (AckStatus.ACCEPTED_WITH_EXCEPTIONS, "Accept with the exceptions listed below"),
        ],
        widget=forms.RadioSelect,
    )
    provider_owner_name = forms.CharField(
        label="Your incident owner",
        max_length=120,
        required=False,
        help_text="The person the buyer calls when a run fails.",
    )
    provider_owner_contact = forms.CharField(
        label="Their contact",
        max_length=200,
        required=False,
        help_text="E-mail, phone or on-call alias.",
    )

    def __init__(self, *args: Any, terms_name_owner: bool, has_terms: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.has_terms = has_terms
        # Required unless the buyer's terms already name someone the provider may keep.
        for name in ("provider_owner_name", "provider_owner_contact"):
            self.fields[name].required = has_terms and not terms_name_owner
        self.fields["provider_owner_name"].error_messages["required"] = OWNER_NAME_MISSING
        self.fields["provider_owner_contact"].error_messages["required"] = OWNER_CONTACT_MISSING


class ExceptionForm(forms.Form):
    field = forms.ChoiceField(label="Concerns", required=False)
    text = forms.CharField(label="Exception", required=False, max_length=500)

    def __init__(self, *args: Any, field_choices: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["field"].choices = [("", "— the whole document —"), *field_choices]  # type: ignore[attr-defined]


ExceptionFormSet = forms.formset_factory(ExceptionForm, extra=3, max_num=20)
