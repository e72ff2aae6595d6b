# A custom action whose code does the same every time: the import reads
# its response and slot event as a stub would give them.
from rasa_sdk import Action
from rasa_sdk.events import SlotSet


class FetchBalance(Action):
    def name(self) -> str:
        return "fetch_balance"

    def run(self, dispatcher, tracker, domain):
        dispatcher.utter_message(response="utter_balance")
        return [SlotSet("balance_known", True)]
