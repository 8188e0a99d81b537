"""Form helpers shared by the apps' model forms."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import FieldDoesNotExist
from django.core.validators import MaxValueValidator, MinValueValidator


def bounds_from_model(form: forms.ModelForm) -> None:
    """Number fields take their limits from the model field's validators, so a value out of
    range gets one message whichever side it is on ("−16" and "0" both read "≥ 1", not "≥ 0"
    for one and "≥ 1" for the other), and the browser's min/max say the same."""
    model = form._meta.model
    for name, field in form.fields.items():
        if not isinstance(field, forms.IntegerField | forms.DecimalField):
            continue
        try:
            model_field = model._meta.get_field(name)
        except FieldDoesNotExist:
            continue
        validators = getattr(model_field, "validators", [])
        lows: list[Any] = [v.limit_value for v in validators if type(v) is MinValueValidator]
        highs: list[Any] = [v.limit_value for v in validators if type(v) is MaxValueValidator]
        lows += [field.min_value] if field.min_value is not None else []
        highs += [field.max_value] if field.max_value is not None else []
        low, high = max(lows, default=None), min(highs, default=None)
        field.validators = [
            v for v in field.validators if type(v) not in (MinValueValidator, MaxValueValidator)
        ]
        field.min_value, field.max_value = low, high
        # A model validator's own words ("one replica is the whole GPU …") stay its message.
        low_words = next(
            (
                v.message
                for v in validators
                if type(v) is MinValueValidator and v.limit_value == low
            ),
            None,
        )
        high_words = next(
            (
                v.message
                for v in validators
                if type(v) is MaxValueValidator and v.limit_value == high
            ),
            None,
        )
        if low is not None:
            field.validators.append(MinValueValidator(low, message=low_words))
            field.widget.attrs["min"] = str(low)
        if high is not None:
            field.validators.append(MaxValueValidator(high, message=high_words))
            field.widget.attrs["max"] = str(high)
