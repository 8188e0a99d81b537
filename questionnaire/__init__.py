"""The provider's incident questionnaire: question sets as data, typed answers, frozen with bids."""
