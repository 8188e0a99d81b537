"""The compliance documents a provider files, by the name procurement teams ask for them."""

from django.db import models


class DocumentType(models.TextChoices):
    SOC2_TYPE2 = "soc2_type2", "SOC 2 Type II"
    SOC2_TYPE1 = "soc2_type1", "SOC 2 Type I"
    ISO27001 = "iso27001", "ISO/IEC 27001"
    ISO27017 = "iso27017", "ISO/IEC 27017"
    ISO27018 = "iso27018", "ISO/IEC 27018"
    CSA_STAR = "csa_star", "CSA STAR"
    PCI_DSS = "pci_dss", "PCI DSS"
    HIPAA = "hipaa", "HIPAA attestation"
