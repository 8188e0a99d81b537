from django import forms


class TokenCreateForm(forms.Form):
    name = forms.CharField(
        label="Name",
        max_length=80,
        help_text="Where the token is used, e.g. “burn-in upload from gpu-a01”.",
    )
