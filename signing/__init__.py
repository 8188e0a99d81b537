import warnings

from cryptography.utils import CryptographyDeprecationWarning

# pyHanko imports cryptography's DSA type when it loads; nothing here signs with DSA
# (signing.pki refuses such keys), so the deprecation would only clutter every command's output.
warnings.filterwarnings(
    "ignore", message="DSA is deprecated", category=CryptographyDeprecationWarning
)
