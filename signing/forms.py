from django import forms

from core.uploads import NamedFileField


class Pkcs12Form(forms.Form):
    pkcs12 = NamedFileField(
        label="PKCS#12 file (.p12 or .pfx)",
        help_text="The organisation's signing certificate with its private key and chain, as "
        "its certificate authority or trust service issued it.",
    )
    password = forms.CharField(
        label="Password of the file",
        required=False,
        strip=False,
        widget=forms.PasswordInput(render_value=False),
        help_text="Used once to open the file; the key is then stored encrypted and the "
        "password is not kept.",
    )
